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
		Use:   "crosscheck",
		Short: "Run the native engine and the real perf bench side by side",
		Long: `Run each workload that has a perf bench equivalent with both engines, native
and the installed perf (LC_ALL=C), with the same parameters and CPU affinity,
interleaved round by round, and print both medians and their ratio.

sched-pipe runs in the style of the installed perf (ping-pong before perf
6.15, symmetric from 6.15). sched-messaging also runs at loops=1 with both
engines, interleaved with the loops asked for, so that each engine's total
splits into a fixed part (the workers' start-up, exit and reaping: what
loops does not scale) and a per-loop part, with 95% intervals. The per-loop
parts must agree; perf's fixed part is larger by its workers' exit (glibc's
exit() in forked copies of perf's binary), which crosscheck measures and
prints. Nothing is stored.`,
		Example: `  sectax crosscheck --suite quick
  sectax crosscheck --only syscall-basic,sched-pipe --cpus 0 --runs 10`,
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
