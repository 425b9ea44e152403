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
		Use:  "attribute",
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
		Use:  "probes",
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
		Use:  "plan",
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
		Use:  "report",
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
