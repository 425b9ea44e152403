package report

import (
	"fmt"
	"io"

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
		fmt.Fprintln(w)
		writeWrapped(w, fmt.Sprintf("%s %s: total(loops) = fixed + loops × per-loop, from loops=%d and loops=%d interleaved",
			p.Workload, p.Params, p.Loops, p.FixedLoops), "", "  ")
		t := &table{}
		t.add(cell{text: "part"}, cell{text: "native [95% interval]"}, cell{text: "perf [95% interval]"}, cell{text: "native/perf [95% interval]"})
		t.add(cell{text: fmt.Sprintf("total_s (loops=%d)", p.Loops)}, cell{text: withInterval(p.Native.Total)}, cell{text: withInterval(p.Perf.Total)}, cell{text: withInterval(p.TotalRatio)})
		t.add(cell{text: "per-loop (ms)"}, cell{text: withInterval(p.Native.PerLoop)}, cell{text: withInterval(p.Perf.PerLoop)}, cell{text: withInterval(p.PerLoopRatio)})
		t.add(cell{text: "fixed (s)"}, cell{text: withInterval(p.Native.Fixed)}, cell{text: withInterval(p.Perf.Fixed)}, cell{text: withInterval(p.FixedRatio)})
		if err := t.write(w, false); err != nil {
			return err
		}
		verdict := "agrees"
		if !p.PerLoopAgrees {
			verdict = "does NOT agree"
		}
		line := fmt.Sprintf("per-loop: native/perf %.3f %s within ±%.0f%%", p.PerLoopRatio.Value, verdict, p.TolerancePct)
		if !p.PerLoopResolved {
			line += fmt.Sprintf("; its 95%% interval is wider than ±%.0f%%: too noisy to tell (more --runs, a quieter machine, or more loops)", p.TolerancePct)
		}
		writeWrapped(w, line, "", "  ")
		writeWrapped(w, fmt.Sprintf("fixed: perf's minus native's %s s: perf's worker exit (glibc exit() of a forked copy of perf's binary)",
			withInterval(p.PerfWorkerExit)), "", "  ")
	}
	return nil
}
