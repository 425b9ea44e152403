package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/exit"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/perfbench"
	"github.com/sectax/sectax/internal/run"
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
6.15, symmetric from 6.15). For sched-messaging, perf reports only its total
time (teardown included); native also reports work_s (teardown excluded),
which is the figure to trust on virtual machines where process teardown is
expensive. Nothing is stored.`,
		Example: `  sectax crosscheck --suite quick
  sectax crosscheck --only syscall-basic,sched-pipe --cpus 0 --runs 10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(cmd); err != nil {
				return err
			}
			return runCrosscheck(cmd.Context(), g, o)
		},
	}
	o.addSelectionFlags(cmd)
	addFormatFlag(cmd, g, "text", "text", "json")
	return cmd
}

func runCrosscheck(ctx context.Context, g *Globals, o *runOptions) error {
	if err := checkFormat(g, "text", "json"); err != nil {
		return err
	}
	if len(o.only) == 0 {
		for _, w := range g.deps.Registry.All() {
			if perfbench.Supports(w.Info().ID) {
				o.only = append(o.only, w.Info().ID)
			}
		}
	}
	pl, err := makePlan(ctx, g, o, []string{"native", "perf"})
	if err != nil {
		return crosscheckHint(err)
	}
	release, err := g.measureLock(true)
	if err != nil {
		return err
	}
	defer release()
	return crosscheckHint(measure(ctx, g, o, pl, session{label: "crosscheck", engine: "native+perf", text: writeCrosscheckText}))
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

// writeCrosscheckText pairs each native result with the perf result of the
// same workload and parameters.
func writeCrosscheckText(w io.Writer, r *run.Run) error {
	fmt.Fprintf(w, "crosscheck: native vs %s, suite %s", r.PerfVersion, r.Suite)
	if r.CPUs != "" {
		fmt.Fprintf(w, ", pinned to CPUs %s", r.CPUs)
	}
	fmt.Fprintf(w, ", seed %d\n", r.Seed)
	if r.Env != nil {
		fmt.Fprintf(w, "kernel %s\n", r.Env.Kernel.Release)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tparameters\tmetric\tunit\tnative median [95% interval]\tperf median [95% interval]\tnative/perf\tn\t")
	for i := range r.Results {
		nat := &r.Results[i]
		if nat.Engine != "native" {
			continue
		}
		var prf *run.Result
		for j := range r.Results {
			if r.Results[j].Engine == "perf" && r.Results[j].Workload == nat.Workload &&
				run.ParamsKey(r.Results[j].Params) == run.ParamsKey(nat.Params) {
				prf = &r.Results[j]
			}
		}
		first := true
		for _, m := range nat.Metrics {
			wl, ps := nat.Workload, run.ParamsKey(nat.Params)
			if !first {
				wl, ps = "", ""
			}
			first = false
			ns := summarize(m.Samples)
			perfCol, ratio, n := "(perf does not report it)", "", fmt.Sprint(ns.n)
			if prf != nil {
				if pm := prf.Metric(m.Name); pm != nil && len(pm.Samples) > 0 {
					ps := summarize(pm.Samples)
					perfCol = ps.median + " [" + ps.interval + "]"
					if ps.center != 0 {
						ratio = fmt.Sprintf("%.3f", ns.center/ps.center)
					}
					n = fmt.Sprintf("%d+%d", ns.n, ps.n)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", wl, ps, m.Name, m.Unit,
				ns.median+" ["+ns.interval+"]", perfCol, ratio, n)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nnative/perf is the ratio of medians; 1.000 means identical. For sched-messaging")
	fmt.Fprintln(w, "compare work_s: perf's total includes tearing down forked copies of itself.")
	var notes []string
	for _, res := range r.Results {
		if res.Footprint != nil {
			notes = append(notes, res.Workload+" ("+res.Engine+"): "+res.Footprint.String())
		}
		for _, f := range res.Failures {
			notes = append(notes, res.Workload+" ("+res.Engine+") failed: "+f)
		}
	}
	notes = append(notes, r.Notes...)
	for _, n := range notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	return nil
}
