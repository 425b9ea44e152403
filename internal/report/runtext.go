package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// RunText prints a run as a table a person reads at a glance: one row
// per metric with its median, 95% interval (or min–max) and sample count,
// then the notes, warnings and failures.
func RunText(w io.Writer, r *run.Run) error {
	return plainText(w, func(w io.Writer) error { return runText(w, r) })
}

func runText(w io.Writer, r *run.Run) error {
	fmt.Fprintf(w, "run %s", r.ID)
	if r.Label != "" {
		fmt.Fprintf(w, "  label %s", r.Label)
	}
	fmt.Fprintf(w, "  suite %s  engine %s  status %s\n", r.Suite, r.Engine, r.Status)
	if r.Env != nil {
		fmt.Fprintf(w, "kernel %s  mitigations %s (%s)\n", r.Env.Kernel.Release, r.Env.MitigationMode, r.Env.MitigationModeReason)
	}
	if r.CPUs != "" {
		fmt.Fprintf(w, "pinned to CPUs %s\n", r.CPUs)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tparameters\tmetric\tunit\tmedian\t95% interval\tn\t")
	for _, res := range r.Results {
		name := res.Workload
		if res.Engine != "" && res.Engine != r.Engine {
			name += " (" + res.Engine + ")"
		}
		for i, m := range res.Metrics {
			wl, ps := name, run.ParamsKey(res.Params)
			if i > 0 {
				wl, ps = "", ""
			}
			s := summarizeRun(m.Samples)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", wl, ps, m.Name, m.Unit, s.median, s.interval, s.n)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	stoppingText(w, r)
	var notes []string
	notes = append(notes, r.Notes...)
	for _, res := range r.Results {
		if res.Footprint != nil {
			notes = append(notes, res.Workload+": "+res.Footprint.String())
		}
		for _, c := range res.SpecControls {
			notes = append(notes, fmt.Sprintf("%s: %s=%s verified: %s", res.Workload, c.Control, c.Requested, attribute.VerifiedText(c)))
		}
		for _, x := range res.Warnings {
			notes = append(notes, res.Workload+": "+x)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	var fails []string
	for _, res := range r.Results {
		for _, x := range res.Failures {
			fails = append(fails, res.Workload+": "+x)
		}
	}
	if len(fails) > 0 {
		fmt.Fprintln(w, "\nfailures:")
		for _, f := range fails {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	return nil
}

type runSummary struct {
	median, interval string
	n                int
	center, lo, hi   float64
	ci               bool
}

// summarizeRun is the median with its distribution-free 95% confidence
// interval (stats owns the statistics), or the min–max range when there
// are too few samples for one, in report's number format.
func summarizeRun(xs []float64) runSummary {
	if len(xs) == 0 {
		return runSummary{median: "—", interval: "no samples"}
	}
	st := stats.Summarize(xs)
	s := runSummary{n: st.N, center: st.Center, lo: st.Lo, hi: st.Hi, ci: st.HasCI}
	s.median = Num(st.Center)
	if s.ci {
		s.interval = valueInterval(st.Lo, st.Hi)
	} else {
		s.lo, s.hi = st.Min, st.Max
		s.interval = valueInterval(s.lo, s.hi) + " (range)"
	}
	return s
}

// CrosscheckText is the text of 'sectax crosscheck': it pairs each native result with the perf result of the
// same workload and parameters.
func CrosscheckText(w io.Writer, r *run.Run) error {
	return plainText(w, func(w io.Writer) error { return crosscheckText(w, r) })
}

func crosscheckText(w io.Writer, r *run.Run) error {
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
			ns := summarizeRun(m.Samples)
			perfCol, ratio, n := "(perf does not report it)", "", fmt.Sprint(ns.n)
			if prf != nil {
				if pm := prf.Metric(m.Name); pm != nil && len(pm.Samples) > 0 {
					ps := summarizeRun(pm.Samples)
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
	fmt.Fprintln(w, "\nnative/perf is the ratio of medians; 1.000 means identical.")
	stoppingText(w, r)
	if err := messagingPartsText(w, compare.SchedMessagingParts(r)); err != nil {
		return err
	}
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
