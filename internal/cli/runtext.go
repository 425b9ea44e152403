package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// writeRunText prints a run as a table a person reads at a glance: one row
// per metric with its median, 95% interval (or min–max) and sample count,
// then the notes, warnings and failures.
func writeRunText(w io.Writer, r *run.Run) error {
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
			s := summarize(m.Samples)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", wl, ps, m.Name, m.Unit, s.median, s.interval, s.n)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
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

type summary struct {
	median, interval string
	n                int
	center, lo, hi   float64
	ci               bool
}

// summarize is the median with its distribution-free 95% confidence
// interval (stats owns the statistics), or the min–max range when there
// are too few samples for one, in report's number format.
func summarize(xs []float64) summary {
	if len(xs) == 0 {
		return summary{median: "—", interval: "no samples"}
	}
	st := stats.Summarize(xs)
	s := summary{n: st.N, center: st.Center, lo: st.Lo, hi: st.Hi, ci: st.HasCI}
	s.median = report.Num(st.Center)
	if s.ci {
		s.interval = report.Num(st.Lo) + " – " + report.Num(st.Hi)
	} else {
		s.lo, s.hi = st.Min, st.Max
		s.interval = report.Num(s.lo) + " – " + report.Num(s.hi) + " (range)"
	}
	return s
}
