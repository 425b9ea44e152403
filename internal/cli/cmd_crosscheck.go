package cli

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/report"
)

func newCrosscheckCmd(g *Globals) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:  "crosscheck",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCrosscheck(cmd.Context(), g, o) },
	}
	o.Request = measureFlags(cmd)
	hostFlags(cmd, o.Request)
	addFormatFlag(cmd, report.CrosscheckFormats.List())
	return cmd
}

func runCrosscheck(ctx context.Context, g *Globals, o *runOptions) error {
	req := *o.Request
	if len(req.Only) == 0 && !slices.Contains(req.Given, "only") {
		req.Only = g.deps.Registry.PerfBenchIDs()
	}
	pl, err := makePlan(ctx, g, &req, []string{"native", "perf"})
	if err != nil {
		return crosscheckHint(err)
	}
	pl.AlsoSplit()
	release, err := g.measureLock(true)
	if err != nil {
		return err
	}
	defer release()
	env, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	return crosscheckHint(measureHere(ctx, g, pl, g.runMeta("crosscheck", "native+perf", env), nil, renderer(g, report.CrosscheckFormats)))
}

// crosscheckHint rewrites the perf engine's advice to "use --engine
// native", a flag crosscheck does not have: crosscheck needs perf by
// definition, and measuring without it is sectax run's job.
func crosscheckHint(err error) error {
	const hint = "use --engine native"
	if err == nil {
		return nil
	}
	msg := err.Error()
	if !strings.Contains(msg, hint) {
		return err
	}
	msg = strings.Replace(msg, hint, "measure without perf with sectax run --engine native (crosscheck always needs perf)", 1)
	return exit.Wrap(exit.Of(err), errors.New(msg))
}
