package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/workload"
)

func newAttributeCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "attribute",
		Short: "Which mitigation costs what: per-task controls now, per-mitigation configurations",
		Long: `Attribute the security tax to individual mitigations.

  sectax attribute probes    measure the per-task speculation controls (SSBD,
                             indirect-branch speculation, L1D flush) off and
                             on, interleaved, within this boot
  sectax attribute plan      the mitigations active on this kernel, the
                             parameter that turns each off, and the
                             configurations that attribute the tax to them
  sectax attribute report    the share of the tax each mitigation carries,
                             from the stored runs of those configurations

See docs/attribute.md.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newAttributeProbesCmd(g), newAttributePlanCmd(g), newAttributeReportCmd(g))
	return cmd
}

type probesOptions struct {
	req     plan.Request
	label   string
	noStore bool
	alpha   float64
}

func newAttributeProbesCmd(g *Globals) *cobra.Command {
	o := &probesOptions{}
	cmd := &cobra.Command{
		Use:   "probes",
		Short: "Measure the per-task speculation controls off and on within one boot",
		Long: `Measure what each per-task speculation control costs, without a reboot.

Linux lets a task switch some mitigations for itself with
prctl(PR_SET_SPECULATION_CTRL) when the kernel's mode allows it: Speculative
Store Bypass Disable (ssbd), indirect-branch speculation (ib: STIBP, and an
IBPB when switching to or from the task) and the L1D flush on context switch
(l1d_flush, only after booting with l1d_flush=on).

The probe workloads (syscall-basic, sched-pipe in process and thread mode,
sched-messaging with one group) run once with every available control off
(the baseline) and once per control with that one forced on, as separate
items interleaved repetition by repetition, so that drift hits every arm
alike. Before every timed window the control is set in the thread that runs
the workload (its worker processes inherit it) and in every worker thread,
and /proc/PID/task/TID/status is checked in every task: a repetition whose
tasks do not show the requested state fails.

The report gives each control's tax per workload: the change of the median
with its 95% interval and the p-value of the Mann-Whitney U test. A control
this kernel does not offer is listed with the kernel's reason (its
PR_GET_SPECULATION_CTRL answer and vulnerability file); when none is
offered nothing is run and the exit status is 0. The run is stored (label
probes) unless --no-store.`,
		Example: `  sectax attribute probes
  sectax attribute probes --runs 20 --cpus 0 --format md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAttributeProbes(cmd.Context(), g, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.req.Suite, "suite", "quick", "workload sizes: quick, standard or study")
	f.IntVar(&o.req.Repetitions, "runs", 10, "measured repetitions of every arm")
	f.IntVar(&o.req.Warmup, "warmup", 1, "unmeasured repetitions of every arm first")
	f.StringVar(&o.req.CPUs, "cpus", "", "pin the run and its children to this CPU `LIST`")
	f.Int64Var(&o.req.Seed, "seed", 0, "seed of the shuffled repetition order (default: random, recorded)")
	f.DurationVar(&o.req.Timeout, "timeout", plan.DefaultTimeout, "a repetition running longer than this fails")
	f.StringVar(&o.label, "label", "probes", "label of the stored run")
	f.BoolVar(&o.noStore, "no-store", false, "do not record the run in the database")
	f.Float64Var(&o.alpha, "alpha", stats.DefaultAlpha, "significance level of the U test")
	addFormatFlag(cmd, report.ProbesFormats.List())
	return cmd
}

func runAttributeProbes(ctx context.Context, g *Globals, o *probesOptions) error {
	if err := stats.CheckAlpha(o.alpha); err != nil {
		return exit.Wrap(exit.Usage, fmt.Errorf("--alpha: %w", err))
	}
	req := o.req
	if req.Repetitions == 0 {
		req.Given = []string{"runs"} // --runs 0: every arm has its own count, no default
	}
	suite, err := req.Check()
	if err != nil {
		return err
	}
	env, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	offers := workload.SpecCtlOffers(env)
	show := renderer(g, report.ProbesFormats)
	pl, err := attribute.ProbePlan(g.deps.Registry, suite, offers, req.Repetitions, req.CPUs)
	if err != nil {
		return err
	}
	if len(pl.Items) == 0 {
		rep, err := attribute.ProbeTaxes(&run.Run{Env: env}, offers, o.alpha)
		if err != nil {
			return err
		}
		return render(g, report.ProbesFormats, rep, report.Options{})
	}

	pl.Request = req
	rec, done, err := measureInto(ctx, g, o.noStore, o.label)
	if err != nil {
		return err
	}
	defer done()
	return measureHere(ctx, g, pl, g.runMeta(o.label, "native", env), rec, func(w io.Writer, r *run.Run) error {
		rep, err := attribute.ProbeTaxes(r, offers, o.alpha)
		if err != nil {
			return err
		}
		return show(w, rep)
	})
}

func newAttributePlanCmd(g *Globals) *cobra.Command {
	var only string
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "List the active mitigations and the configurations that attribute the tax to them",
		Long: `Read this kernel's vulnerability files and command line (or a fake tree with
--root) and, from the knowledge base, list the mitigations that are active and
the parameter that turns each off alone on this kernel version. From them, the
configurations of an attribution:

  on, off            the default command line, and mitigations=off
  no-FILE            leave-one-out: one mitigation off (no-verw: the
                     mitigations that share the VERW buffer clear, which
                     go only together)
  cum-N              cumulative: one more mitigation off at each step,
                     most expensive first
  study-off          the study's tuned line: quiet loglevel=0 audit=0
                     vsyscall=none mitigations=off
  mitigations-only   mitigations=off alone (the same boot as off)
  rest-only          the study's line without mitigations=off
  no-VECTOR          one attack vector dropped (no-user_kernel, no-user_user,
                     no-guest_host, no-guest_guest, no-cross_thread), listed
                     when a mitigation here depends on it alone
  no-guest…          the vector sets 'sectax decide' weighs: no-guest,
                     no-guest-cross_thread, no-guest-cross_thread-user_user

Vector configurations are spelled in the kernel's syntax from 6.17
(mitigations=auto,no_guest_host,no_guest_guest) and with the per-bug
parameters that reproduce them before (notes say what they cannot reproduce).
--plan KIND shows only the configurations of one selection, as 'campaign
start --plan' and 'lab --plan' boot them: leave-one-out, cumulative, study,
vectors.

Each configuration lists the vulnerability files it is expected to turn off,
which verification checks after the boot, and says when a parameter will have
no effect (a VERW user kept on by another, an always-on part).`,
		Example: `  sectax attribute plan
  sectax attribute plan --root /mnt/other-machine --format json
  sectax attribute plan --plan vectors`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAttributePlan(cmd.Context(), g, only) },
	}
	addFormatFlag(cmd, report.PlanFormats.List())
	cmd.Flags().StringVar(&only, "plan", "", "show only the configurations of `KIND`: "+strings.Join(attribute.Selections, "|"))
	return cmd
}

func runAttributePlan(ctx context.Context, g *Globals, only string) error {
	env, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return err
	}
	p, err := attribute.MakeDesign(env, kb)
	if err != nil {
		return err
	}
	if only != "" {
		if p, err = p.Only(only); err != nil {
			return usagef("--plan: %v", err)
		}
	}
	return render(g, report.PlanFormats, p, report.Options{})
}

func newAttributeReportCmd(g *Globals) *cobra.Command {
	var configs []string
	var alpha, margin float64
	var chartDir, by string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Split the tax of each workload among the mitigations, from runs per configuration",
		Long: `Attribute each workload's tax to the mitigations, from stored runs measured
under the configurations of 'sectax attribute plan'.

A run belongs to the configuration named in its config block (lab, campaign)
or, without one, to its label when the label is a plan name (on, off, no-*,
cum-*, study-off, mitigations-only, rest-only). --config NAME=REF takes the
runs of a configuration from a run id, prefix or label instead.

Every configuration is compared with on (medians, Mann-Whitney U, per-boot
medians when a configuration spans several boots). The tax of a configuration
is how much slower on is than it; off gives the total, each leave-one-out
configuration its part and share of the total; the interaction is the total
minus the sum of the parts (positive: the mitigations cost more together than
apart). The waterfall follows the plan's cumulative order.

--by vector makes the attack vectors the parts: each no-VECTOR configuration
of 'attribute plan --plan vectors' (measured with 'campaign start --plan
vectors' or 'lab --plan vectors') with its share of the total.`,
		Example: `  sectax attribute report
  sectax attribute report --config on=20261130T0900 --config off=label-off --format md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if by != "" && by != "mitigation" && by != "vector" {
				return usagef("--by %q: give mitigation or vector", by)
			}
			return runAttributeReport(cmd.Context(), g, configs, compare.Options{Alpha: alpha, MarginPct: margin}, chartDir, by == "vector")
		},
	}
	cmd.Flags().StringArrayVar(&configs, "config", nil, "take configuration NAME's runs from `NAME=REF` (a run id, prefix or label; repeatable)")
	cmd.Flags().Float64Var(&alpha, "alpha", stats.DefaultAlpha, "significance level of the U test")
	addMarginFlag(cmd, &margin)
	cmd.Flags().StringVar(&by, "by", "mitigation", "split the tax by `mitigation` (leave-one-out) or by vector (the vector plan)")
	cmd.Flags().StringVar(&chartDir, "chart", "", "also write each workload's cumulative waterfall as a PNG into `DIR`")
	addFormatFlag(cmd, report.AttributionFormats.List())
	return cmd
}

func runAttributeReport(ctx context.Context, g *Globals, configs []string, opt compare.Options, chartDir string, byVector bool) error {
	if err := stats.CheckAlpha(opt.Alpha); err != nil {
		return exit.Wrap(exit.Usage, fmt.Errorf("--alpha: %w", err))
	}
	if err := checkMargin(opt.MarginPct); err != nil {
		return err
	}
	var arms []attribute.Arm
	var err error
	if len(configs) > 0 {
		load := g.loader()
		defer load.Close()
		arms, err = attribute.ConfigArms(ctx, load, configs)
	} else {
		db, oerr := openStore(ctx, g, false)
		if errors.Is(oerr, store.ErrNoDatabase) {
			nothingStored(g, "measure the configurations of `sectax attribute plan` first")
			return nil
		}
		if oerr != nil {
			return oerr
		}
		defer db.Close()
		arms, err = attribute.StoredArms(ctx, db)
	}
	if err != nil {
		return err
	}
	att, err := attribute.Report(arms, opt)
	if err != nil {
		return err
	}
	if byVector {
		att = attribute.ByVector(att)
	}
	if chartDir != "" {
		if err := writeWaterfalls(ctx, g, chartDir, att); err != nil {
			return err
		}
	}
	return render(g, report.AttributionFormats, att, report.Options{})
}

// writeWaterfalls writes one PNG per workload into dir (created if needed).
func writeWaterfalls(ctx context.Context, g *Globals, dir string, att *attribute.Attribution) error {
	charts, err := report.WaterfallCharts(att)
	if err != nil {
		return err
	}
	if len(charts) == 0 {
		g.notice("no waterfall to draw: measure at least one cumulative step or off besides on")
		return nil
	}
	images, err := writeCharts(ctx, g, charts, dir)
	if err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	for _, im := range images {
		g.notice("wrote %s", im.Path)
	}
	return nil
}
