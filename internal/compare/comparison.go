package compare

import (
	"fmt"
	"sort"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// ComparisonSchema is the value of the "schema" field of the JSON report
// of a comparison of any number of sides (a pair is the case of one
// comparison); each of its comparisons is a Report (Schema).
const ComparisonSchema = "sectax.compare/v3"

// MultiplicityAcrossSides names the correction of a multi-side comparison:
// Holm–Bonferroni over every (side, primary metric) pair against the
// baseline, one family for the whole report. Each pairwise report of a
// Comparison of three or more sides carries it instead of Multiplicity.
const MultiplicityAcrossSides = "holm-across-sides"

// ErrDuplicateSide is a side given twice, ErrRunOnTwoSides a run that two
// sides hold; the CLI exits 2 on them.
var (
	ErrDuplicateSide = exit.New(exit.Usage, "a side is given twice")
	ErrRunOnTwoSides = exit.New(exit.Usage, "a run is on two sides")
)

// Comparison is a comparison of two or more sides: the first is the
// baseline (as benchstat's first column), and each other side is compared
// with it by the pairwise Report, the p-values of all of them corrected
// together. A pair is the case of one other side. Reports lay it out as a
// row per workload and metric and a column per side.
type Comparison struct {
	Schema string `json:"schema"`
	// Conclusions are the conclusion of each side against the baseline, in
	// side order (the first line of every format).
	Conclusions []SideConclusion `json:"conclusions"`
	Alpha       float64          `json:"alpha"`
	Confidence  float64          `json:"confidence"`
	// Multiplicity is MultiplicityAcrossSides (Multiplicity for a pair);
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
// baseline), each by the pairwise Report, with Holm's correction over every
// side's primary metrics together. It needs at least two sides; a pair is
// one Report (Pair). It refuses sides measured under different
// accelerators (*MixedAcceleratorsError).
func CompareSides(sides []Side, opt Options) (*Comparison, error) {
	if len(sides) < 2 {
		return nil, fmt.Errorf("a comparison needs at least two sides, got %d", len(sides))
	}
	pair := len(sides) == 2
	seen := map[string]bool{}
	owner := map[string]string{}
	for _, s := range sides {
		if pair {
			break // a pair's one check is match's ErrSameRun
		}
		if seen[s.Ref] {
			return nil, fmt.Errorf("%w (%s): name each side once", ErrDuplicateSide, s.Ref)
		}
		seen[s.Ref] = true
		for _, r := range s.Runs {
			if o, ok := owner[r.ID]; ok {
				return nil, fmt.Errorf("%w: run %s is in both %s and %s; compare disjoint sets of runs", ErrRunOnTwoSides, r.ID, o, s.Ref)
			}
			owner[r.ID] = s.Ref
		}
	}
	note, err := checkAccelerators(sides)
	if err != nil {
		return nil, err
	}
	base := sides[0]
	mr := &Comparison{Schema: ComparisonSchema, Multiplicity: MultiplicityAcrossSides, Lab: note, Inputs: sides}
	if pair {
		mr.Multiplicity = Multiplicity
	}
	for _, s := range sides[1:] {
		rep, err := match(base, s, opt)
		if err != nil {
			return nil, err
		}
		rep.Multiplicity = mr.Multiplicity
		mr.Comparisons = append(mr.Comparisons, rep)
	}
	adjust(mr.Comparisons)
	for i, rep := range mr.Comparisons {
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
	mr.Alpha, mr.Confidence, mr.Baseline = first.Alpha, first.Confidence, first.A
	mr.Rows = multiRows(base, mr.Comparisons)
	return mr, nil
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

// Pair is the one Report of a comparison of two sides, nil when there are
// three or more.
func (mr *Comparison) Pair() *Report {
	if len(mr.Comparisons) != 1 {
		return nil
	}
	return mr.Comparisons[0]
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
