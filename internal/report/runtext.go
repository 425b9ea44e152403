package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// RunText prints a run as a person reads it at a glance: its heading,
// then the results as ShowText draws them (resultsText).
func RunText(w io.Writer, r *run.Run) error {
	return plainText(w, func(w io.Writer) error { return runText(w, r) })
}

func runText(w io.Writer, r *run.Run) error {
	head := "run " + r.ID
	if r.Label != "" {
		head += "  label " + r.Label
	}
	head += fmt.Sprintf("  suite %s  engine %s  status %s", r.Suite, r.Engine, r.Status)
	writeWrapped(w, head, "", "  ")
	if r.Env != nil {
		writeWrapped(w, fmt.Sprintf("kernel %s  mitigations %s (%s)", r.Env.Kernel.Release, r.Env.MitigationMode, r.Env.MitigationModeReason), "", "  ")
	}
	if r.CPUs != "" {
		writeWrapped(w, "pinned to CPUs "+r.CPUs, "", "  ")
	}
	fmt.Fprintln(w)
	return resultsText(w, r)
}

// resultsText is the one table of a run's results, for run and show
// alike: a line per workload with its parameters (wrapped to TextWidth),
// a row per metric with its median, 95% interval (or min – max range
// when there are too few samples for one), sample count and direction;
// then the stopping rule, the notes, warnings and failures.
func resultsText(w io.Writer, r *run.Run) error {
	t := NewTable()
	t.Row("workload / metric", "median", "95% interval", "n", "")
	var notes, warnings, fails []string
	notes = append(notes, r.Notes...)
	for _, res := range r.Results {
		title := Clip(res.Workload, 64)
		if pk := run.ParamsKey(res.Params); pk != "" {
			title += " " + pk
		}
		if res.Engine != "" && res.Engine != r.Engine {
			title += " (engine " + res.Engine + ")"
		}
		lines := []string{Clip(title, 512)}
		if termSafe(title) == title { // foreign text stays on its line (writeForeign)
			lines = wrap(lines[0], "", "    ", widthOf(w))
		}
		for _, l := range lines {
			t.Line(l)
		}
		for _, m := range res.Metrics {
			s := summarizeRun(m.Samples)
			median := s.median
			if s.n > 0 {
				median = WithUnit(s.center, m.Unit)
			}
			better := ""
			if m.Better != "" {
				better = Clip(string(m.Better), 16) + " is better"
			}
			t.Row("  "+Clip(m.Name, 64), Clip(median, 96), s.interval, fmt.Sprint(s.n), better)
		}
		if res.Footprint != nil {
			notes = append(notes, res.Workload+": "+res.Footprint.String())
		}
		for _, c := range res.SpecControls {
			notes = append(notes, fmt.Sprintf("%s: %s=%s verified: %s", res.Workload, c.Control, c.Requested, attribute.VerifiedText(c)))
		}
		for _, x := range res.Warnings {
			warnings = append(warnings, res.Workload+": "+x)
		}
		for _, x := range res.Failures {
			fails = append(fails, res.Workload+": "+x)
		}
	}
	if err := t.Write(w, false); err != nil {
		return err
	}
	stoppingText(w, r)
	listText(w, "Notes", notes)
	listText(w, "Warnings", warnings)
	listText(w, "Failures", fails)
	return nil
}

// listText writes a titled list of a run's messages, each wrapped to
// TextWidth; a stored run may hold many: the first 100 are shown.
func listText(w io.Writer, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	const maxShown = 100
	for i, x := range items {
		if i == maxShown {
			fmt.Fprintf(w, "  - … and %d more (sectax show --format json has them all)\n", len(items)-maxShown)
			break
		}
		writeForeign(w, Clip(x, 2048), x, "  - ", "    ")
	}
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
	// A workload's title on a line of its own, a row per metric; too
	// wide a table splits after the medians.
	t := &table{starts: []int{1, 3}}
	t.add(cell{text: "workload / metric"}, cell{text: "native median [95% interval]"}, cell{text: "perf median [95% interval]"},
		cell{text: "native/perf", right: true}, cell{text: "n", right: true})
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
		t.add(cell{text: strings.TrimSpace(nat.Workload + " " + run.ParamsKey(nat.Params))})
		for _, m := range nat.Metrics {
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
			t.add(cell{text: "  " + m.Name + " (" + m.Unit + ")"}, cell{text: ns.median + " [" + ns.interval + "]"}, cell{text: perfCol},
				cell{text: ratio, right: true}, cell{text: n, right: true})
		}
	}
	if err := t.write(w, false); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nnative/perf is the ratio of medians; 1.000 means identical.")
	stoppingText(w, r)
	if err := splitPartsText(w, compare.LoopParts(r)); err != nil {
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
		writeWrapped(w, n, "  ", "    ")
	}
	return nil
}
