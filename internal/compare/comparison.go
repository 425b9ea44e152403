package compare

import (
	"fmt"
	"sort"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// ComparisonSchema is the value of the "schema" field of the JSON report
// of a comparison of any number of sides; each of its comparisons is a
// Report (Schema).
const ComparisonSchema = "sectax.compare/v3"

// ErrDuplicateSide is a side given twice, ErrRunOnTwoSides a run that two
// sides hold (ErrSameRun: two sides that are the same runs); the CLI exits
// 2 on them.
var (
	ErrDuplicateSide = exit.New(exit.Usage, "a side is given twice")
	ErrRunOnTwoSides = exit.New(exit.Usage, "a run is on two sides")
)

// SideError is why one side could not be compared with the baseline (no
// workload in common, no runs); its text is Err's. A caller that compares
// many sides can leave that side out and compare the rest.
type SideError struct {
	Side string
	Err  error
}

func (e *SideError) Error() string { return e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// Comparison is the one comparison of sectax: two or more sides, the first
// the baseline (as benchstat's first column), each other side compared with
// it by a Report, the p-values of all of them corrected together as one
// Holm family. Two sides are simply a baseline and one other side; every
// command that reports a change or a tax (compare, attribute report, the
// lab matrix, campaign, fleet, the Prometheus export) builds one per
// question and reads its Rows. Reports lay it out as a row per workload and
// metric and a column per side.
type Comparison struct {
	Schema string `json:"schema"`
	// Conclusions are the conclusion of each side against the baseline, in
	// side order (the first line of every format).
	Conclusions []SideConclusion `json:"conclusions"`
	Alpha       float64          `json:"alpha"`
	Confidence  float64          `json:"confidence"`
	// MarginPct is the equivalence margin M in percent (Options.MarginPct).
	MarginPct float64 `json:"margin_pct"`
	// Multiplicity is Multiplicity (Holm–Bonferroni over the family);
	// Family the number of hypotheses corrected together (the tested
	// primary metrics of every side against the baseline).
	Multiplicity string   `json:"multiplicity"`
	Family       int      `json:"family"`
	Baseline     SideInfo `json:"baseline"`
	// Headline is what every format says first: TCGHeadline when the runs
	// were emulated; absent otherwise. Lab is how `sectax lab` measured
	// the runs, absent for runs measured on a machine itself.
	Headline string   `json:"headline,omitempty"`
	Lab      *LabNote `json:"lab,omitempty"`
	// Comparisons are the reports (Schema) of each other side
	// against the baseline (their A is the baseline), in side order.
	Comparisons []*Report `json:"comparisons"`
	// Rows are the table of every format: a row per workload and metric, a
	// cell per other side. Not part of the JSON report (the comparisons
	// hold every number).
	Rows []Row `json:"-"`
	// Inputs are the sides as given, the baseline first (their samples,
	// for the formats that carry every sample). Not part of the JSON report.
	Inputs []Side `json:"-"`
}

// SideConclusion is one side's conclusion against the baseline.
type SideConclusion struct {
	Side       string     `json:"side"`
	Conclusion Conclusion `json:"conclusion"`
}

// Row is one workload's metric across the sides.
type Row struct {
	// Workload is the workload as the first comparison that matched it
	// describes it (without metrics).
	Workload Workload
	Name     string
	Unit     string
	Better   run.Better
	// Baseline is the baseline's summary.
	Baseline stats.Summary
	// Sides holds, per comparison, the metric of that side against the
	// baseline; nil when the side lacks the workload or the metric.
	Sides []*Metric
}

// CompareSides compares every side after the first with the first (the
// baseline), each by a Report, with Holm's correction over every side's
// primary metrics together: one family per call, so a caller asks one
// question per call. It needs at least two sides, each named once
// (ErrDuplicateSide), no two of them holding the same runs (ErrSameRun) or
// sharing a run (ErrRunOnTwoSides), and refuses sides measured under
// different accelerators (*MixedAcceleratorsError).
func CompareSides(sides []Side, opt Options) (*Comparison, error) {
	if len(sides) < 2 {
		return nil, fmt.Errorf("a comparison needs at least two sides, got %d", len(sides))
	}
	if err := disjoint(sides); err != nil {
		return nil, err
	}
	note, err := checkAccelerators(sides)
	if err != nil {
		return nil, err
	}
	base := sides[0]
	mr := &Comparison{Schema: ComparisonSchema, Multiplicity: Multiplicity, Lab: note, Inputs: sides}
	if err := stats.CheckAlpha(alphaOf(opt)); err != nil {
		return nil, err
	}
	if err := stats.CheckMargin(marginOf(opt)); err != nil {
		return nil, err
	}
	for _, s := range sides[1:] {
		rep, err := match(base, s, opt)
		if err != nil {
			return nil, &SideError{Side: s.Ref, Err: err}
		}
		mr.Comparisons = append(mr.Comparisons, rep)
	}
	family := adjust(mr.Comparisons)
	for i, rep := range mr.Comparisons {
		rep.judgeEquivalence(family)
		rep.finish(base, sides[i+1])
		rep.addLab(note)
		mr.Headline = rep.Conclusion.Headline
		mr.Conclusions = append(mr.Conclusions, SideConclusion{Side: rep.B.Ref, Conclusion: rep.Conclusion})
		for _, w := range rep.Workloads {
			if len(w.Metrics) > 0 && w.Metrics[0].Role == RolePrimary && w.Metrics[0].PAdjusted != nil {
				mr.Family++
			}
		}
	}
	first := mr.Comparisons[0]
	mr.Alpha, mr.Confidence, mr.MarginPct, mr.Baseline = first.Alpha, first.Confidence, first.MarginPct, first.A
	mr.Rows = multiRows(base, mr.Comparisons)
	return mr, nil
}

// disjoint checks that each side is named once and that no run is on two
// sides: two sides of the very same runs are ErrSameRun (compare two
// different runs or labels), a run shared by two otherwise different sides
// ErrRunOnTwoSides.
func disjoint(sides []Side) error {
	seen := map[string]bool{}
	owner := map[string]int{}
	for i, s := range sides {
		if seen[s.Ref] {
			return fmt.Errorf("%w (%s): name each side once", ErrDuplicateSide, s.Ref)
		}
		seen[s.Ref] = true
		for _, r := range s.Runs {
			j, ok := owner[r.ID]
			if !ok {
				owner[r.ID] = i
				continue
			}
			if sameRuns(sides[j], s) {
				if len(s.Runs) == 1 {
					return fmt.Errorf("%w (%s): compare two different runs or labels", ErrSameRun, r.ID)
				}
				return fmt.Errorf("%w (%s and %s hold the same %d runs): compare two different runs or labels", ErrSameRun, sides[j].Ref, s.Ref, len(s.Runs))
			}
			return fmt.Errorf("%w: run %s is in both %s and %s; compare disjoint sets of runs", ErrRunOnTwoSides, r.ID, sides[j].Ref, s.Ref)
		}
	}
	return nil
}

// sameRuns reports whether a and b hold the same set of runs.
func sameRuns(a, b Side) bool {
	if len(a.Runs) != len(b.Runs) {
		return false
	}
	in := map[string]bool{}
	for _, r := range a.Runs {
		in[r.ID] = true
	}
	for _, r := range b.Runs {
		if !in[r.ID] {
			return false
		}
	}
	return true
}

// multiRows joins the comparisons' metrics into rows, in the baseline's
// order of workloads and metrics.
func multiRows(base Side, reps []*Report) []Row {
	order := map[string]int{}
	for i, g := range groups(base) {
		k := g.id + "\x00" + g.paramsKey
		if _, ok := order[k]; !ok {
			order[k] = i
		}
	}
	var rows []Row
	index := map[string]int{}
	for ri, rep := range reps {
		for _, w := range rep.Workloads {
			for mi := range w.Metrics {
				m := &w.Metrics[mi]
				k := w.ID + "\x00" + w.ParamsKey + "\x00" + w.Engine + "\x00" + m.Name
				i, ok := index[k]
				if !ok {
					wl := w
					wl.Metrics = nil
					i = len(rows)
					index[k] = i
					rows = append(rows, Row{Workload: wl, Name: m.Name, Unit: m.Unit, Better: m.Better,
						Baseline: m.A, Sides: make([]*Metric, len(reps))})
				}
				rows[i].Sides[ri] = m
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		wi, wj := rows[i].Workload, rows[j].Workload
		return order[wi.ID+"\x00"+wi.ParamsKey] < order[wj.ID+"\x00"+wj.ParamsKey]
	})
	return rows
}

// Sides are the references of every side, the baseline first.
func (mr *Comparison) Sides() []string {
	out := []string{mr.Baseline.Ref}
	for _, rep := range mr.Comparisons {
		out = append(out, rep.B.Ref)
	}
	return out
}

// Published reports whether the baseline or any side holds published
// figures.
func (mr *Comparison) Published() bool {
	for _, rep := range mr.Comparisons {
		if rep.A.Published || rep.B.Published {
			return true
		}
	}
	return false
}

// SideLetter names the i-th side as the reports do: A (the baseline), B,
// C, … Z, AA, AB, …
func SideLetter(i int) string {
	s := ""
	for i++; i > 0; i = (i - 1) / 26 {
		s = string(rune('A'+(i-1)%26)) + s
	}
	return s
}
