package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
)

// CrosscheckDoc is the JSON of 'sectax crosscheck': the run document, and
// the parts of each loop-split workload (its key is sched-messaging's, the
// one such workload when it was named; each entry names its workload).
type CrosscheckDoc struct {
	*run.Run
	Parts []compare.SplitParts `json:"sched_messaging_parts,omitempty"`
}

// CrosscheckJSON writes the crosscheck document of r.
func CrosscheckJSON(w io.Writer, r *run.Run) error {
	return WriteJSON(w, CrosscheckDoc{Run: r, Parts: compare.LoopParts(r)})
}

// withInterval renders an estimate as "value [lo – hi]" in report's
// number format.
func withInterval(e compare.Estimate) string {
	s := Num(e.Value)
	if e.Interval == nil {
		return s + " [no interval]"
	}
	return s + " [" + valueInterval(e.Interval.Lo, e.Interval.Hi) + "]"
}

// splitPartsText writes the loop-split parts section of the crosscheck
// text (nothing when there are none).
func splitPartsText(w io.Writer, parts []compare.SplitParts) error {
	for _, p := range parts {
		fmt.Fprintf(w, "\n%s %s: total(loops) = fixed + loops × per-loop, from loops=%d and loops=%d interleaved\n",
			p.Workload, p.Params, p.Loops, p.FixedLoops)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "part\tnative [95%% interval]\tperf [95%% interval]\tnative/perf [95%% interval]\t\n")
		fmt.Fprintf(tw, "total_s (loops=%d)\t%s\t%s\t%s\t\n", p.Loops, withInterval(p.Native.Total), withInterval(p.Perf.Total), withInterval(p.TotalRatio))
		fmt.Fprintf(tw, "per-loop (ms)\t%s\t%s\t%s\t\n", withInterval(p.Native.PerLoop), withInterval(p.Perf.PerLoop), withInterval(p.PerLoopRatio))
		fmt.Fprintf(tw, "fixed (s)\t%s\t%s\t%s\t\n", withInterval(p.Native.Fixed), withInterval(p.Perf.Fixed), withInterval(p.FixedRatio))
		if err := tw.Flush(); err != nil {
			return err
		}
		verdict := "agrees"
		if !p.PerLoopAgrees {
			verdict = "does NOT agree"
		}
		fmt.Fprintf(w, "per-loop: native/perf %.3f %s within ±%.0f%%", p.PerLoopRatio.Value, verdict, p.TolerancePct)
		if !p.PerLoopResolved {
			fmt.Fprintf(w, "; its 95%% interval is wider than ±%.0f%%: too noisy to tell (more --runs, a quieter machine, or more loops)", p.TolerancePct)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "fixed: perf's minus native's %s s: perf's worker exit (glibc exit() of a forked copy of perf's binary)\n",
			withInterval(p.PerfWorkerExit))
	}
	return nil
}
