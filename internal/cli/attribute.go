package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/runner"
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
                             configurations that attribute the tax to them`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newAttributeProbesCmd(g), newAttributePlanCmd(g))
	return cmd
}

// applySpec turns the --spec flag of `sectax run` into wrapped items: it
// reads the kernel's mode and refuses a control it does not offer (exit
// status 2, with the kernel's reason).
func applySpec(ctx context.Context, g *Globals, args []string, pl *plan) error {
	settings, err := workload.ParseSpec(args)
	if err != nil {
		return err
	}
	env, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	offers := workload.SpecOffers(env)
	if err := workload.CheckSpec(settings, offers); err != nil {
		return err
	}
	for i := range pl.items {
		pl.items[i].Workload = workload.WithSpec(pl.items[i].Workload, settings, offers)
	}
	return nil
}

type probesOptions struct {
	runOptions
	alpha float64
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
	f.StringVar(&o.suite, "suite", "quick", "workload sizes: quick, standard or study")
	f.IntVar(&o.runs, "runs", 10, "measured repetitions of every arm")
	f.IntVar(&o.warmup, "warmup", 1, "unmeasured repetitions of every arm first")
	f.StringVar(&o.cpus, "cpus", "", "pin the run and its children to this CPU `LIST`")
	f.Int64Var(&o.seed, "seed", 0, "seed of the shuffled repetition order (default: random, recorded)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "a repetition running longer than this fails")
	f.StringVar(&o.label, "label", "probes", "label of the stored run")
	f.BoolVar(&o.noStore, "no-store", false, "do not record the run in the database")
	f.Float64Var(&o.alpha, "alpha", stats.DefaultAlpha, "significance level of the U test")
	addFormatFlag(cmd, g, "text", "text", "md", "json")
	return cmd
}

func runAttributeProbes(ctx context.Context, g *Globals, o *probesOptions) error {
	if err := checkFormat(g, "text", "md", "json"); err != nil {
		return err
	}
	if err := stats.CheckAlpha(o.alpha); err != nil {
		return usageError{fmt.Errorf("--alpha: %w", err)}
	}
	suite, err := workload.ParseSuite(o.suite)
	if err != nil {
		return err
	}
	if o.runs < 1 || o.warmup < 0 {
		return usagef("--runs must be at least 1 and --warmup not negative")
	}
	if o.timeout <= 0 {
		return usagef("--timeout must be positive, e.g. 10m")
	}
	env, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	offers := workload.SpecOffers(env)
	states := attribute.States(offers)
	render := func(w io.Writer, rep *attribute.ProbeReport) error {
		switch g.Format {
		case "json":
			return report.ProbesJSON(w, rep)
		case "md":
			return report.ProbesMarkdown(w, rep)
		}
		return report.ProbesText(w, rep)
	}
	if len(states) == 0 {
		rep, err := attribute.ProbeTaxes(&run.Run{Env: env}, offers, o.alpha)
		if err != nil {
			return err
		}
		w, finish, err := g.output()
		if err != nil {
			return err
		}
		return finish(render(w, rep))
	}

	pl := &plan{suite: suite}
	if o.cpus != "" {
		if pl.cpus, err = runner.ParseCPUList(o.cpus); err != nil {
			return usagef("--cpus: %v", err)
		}
	}
	for _, off := range offers {
		if !off.Available {
			pl.notes = append(pl.notes, fmt.Sprintf("%s unavailable here: %s", off.Control, off.Reason))
		}
	}
	for _, pr := range attribute.Probes {
		w, err := g.deps.Registry.Lookup(pr.ID)
		if err != nil {
			return err
		}
		p, err := workload.Resolve(w.Info(), suite, pr.Overrides)
		if err != nil {
			return err
		}
		if pf, ok := w.(workload.Preflighter); ok {
			if err := pf.Preflight(p); err != nil {
				return err
			}
		}
		for _, st := range states {
			pl.items = append(pl.items, runner.Item{Workload: workload.WithSpec(w, st.Settings, offers),
				Params: p, Engine: "native", Runs: o.runs})
		}
	}

	release, err := store.AcquireRunLock(g.DB)
	if err != nil {
		return err
	}
	defer release()
	taxes := func(r *run.Run) (*attribute.ProbeReport, error) { return attribute.ProbeTaxes(r, offers, o.alpha) }
	ss := session{label: o.label, engine: "native",
		text: func(w io.Writer, r *run.Run) error {
			rep, err := taxes(r)
			if err != nil {
				return err
			}
			return render(w, rep)
		}}
	ss.json = ss.text
	if !o.noStore {
		db, err := openStore(ctx, g, true)
		if err != nil {
			return err
		}
		defer db.Close()
		ss.sink = db
		ss.stored = func(r *run.Run) { g.notice("stored run %s in %s", r.ID, g.DB) }
	}
	o.runOptions.runs = o.runs
	return measure(ctx, g, &o.runOptions, pl, ss)
}

func newAttributePlanCmd(g *Globals) *cobra.Command {
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

Each configuration lists the vulnerability files it is expected to turn off,
which verification checks after the boot, and says when a parameter will have
no effect (a VERW user kept on by another, an always-on part).`,
		Example: `  sectax attribute plan
  sectax attribute plan --root /mnt/other-machine --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(g, "text", "json"); err != nil {
				return err
			}
			env, err := collectEnv(cmd.Context(), g)
			if err != nil {
				return err
			}
			kb, err := mitigation.KnowledgeBase()
			if err != nil {
				return err
			}
			p, err := attribute.MakePlan(env, kb)
			if err != nil {
				return err
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			if g.Format == "json" {
				return finish(report.PlanJSON(w, p))
			}
			return finish(report.PlanText(w, p))
		},
	}
	addFormatFlag(cmd, g, "text", "text", "json")
	return cmd
}
