package report

import (
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

// Layout of a comparison of two or more sides (compare.Comparison): the
// sides are named by letter (A is the baseline), a row per workload and
// metric, for each side its median and the change against A. The per-side
// details (environment, notes, warnings) are the pairwise reports' own.
// Every format has one renderer for any number of sides; a pair (one side
// against the baseline) has room for the whole test in its columns (change,
// ×, p, p adj, n, verdict) and for what it means, where three or more
// sides get one cell each and a command that shows the pair.

// conclusionOf words the comparison in one line, the first of every
// format: the pair's conclusion, or each side's against the baseline.
func conclusionOf(c *compare.Comparison) string {
	if p := c.Pair(); p != nil {
		return Conclusion(p)
	}
	return MultiConclusion(c)
}

// legendOf explains the columns of the comparison's table.
func legendOf(c *compare.Comparison) string {
	if p := c.Pair(); p != nil {
		return legend(p)
	}
	return multiLegend(c)
}

// sideInfos are the sides' descriptions, the baseline first.
func sideInfos(c *compare.Comparison) []compare.SideInfo {
	out := []compare.SideInfo{c.Baseline}
	for _, rep := range c.Comparisons {
		out = append(out, rep.B)
	}
	return out
}

// newWorkload reports whether row i starts another workload than row i-1.
func newWorkload(rows []compare.Row, i int) bool {
	if i == 0 {
		return true
	}
	a, b := rows[i-1].Workload, rows[i].Workload
	return a.ID != b.ID || a.ParamsKey != b.ParamsKey || a.Engine != b.Engine
}

// lastOfWorkload reports whether row i is its workload's last.
func lastOfWorkload(rows []compare.Row, i int) bool {
	return i == len(rows)-1 || newWorkload(rows, i+1)
}

// sideConclusion words one side's conclusion against the baseline
// ("B is 2.51× as fast as A overall (2 of 2 workloads differ
// significantly)").
func sideConclusion(letter string, c compare.Conclusion) string {
	switch c.Kind {
	case compare.ConclusionSameMitigations:
		if c.Speedup > 0 {
			return fmt.Sprintf("%s: no mitigation changed against A, so its %s is no mitigation tax (noise or another difference: see its warnings)", letter, Speedup(c.Speedup))
		}
		return letter + ": no mitigation changed against A (noise, not a tax)"
	case compare.ConclusionNoDifference:
		return letter + ": no significant difference from A"
	case compare.ConclusionUntested:
		switch {
		case c.Speedup <= 0:
			return letter + ": published figures, untested"
		case c.Workloads > 1:
			return fmt.Sprintf("%s is %s as fast as A overall, as published (geometric mean of %d workloads; untested)", letter, Speedup(c.Speedup), c.Workloads)
		}
		return fmt.Sprintf("%s is %s as fast as A, as published (untested)", letter, Speedup(c.Speedup))
	}
	switch {
	case c.Speedup <= 0:
		return fmt.Sprintf("%s differs significantly from A in %d workload%s", letter, c.Significant, plural(c.Significant))
	case c.Workloads == 1:
		return fmt.Sprintf("%s is %s as fast as A (one workload, significant)", letter, Speedup(c.Speedup))
	}
	return fmt.Sprintf("%s is %s as fast as A overall (%d of %d workloads differ significantly)", letter, Speedup(c.Speedup), c.Significant, c.Workloads)
}

// MultiConclusion words the conclusion of every side against the baseline,
// in one line (the first line of every format).
func MultiConclusion(mr *compare.Comparison) string {
	var parts []string
	for i, c := range mr.Conclusions {
		parts = append(parts, sideConclusion(compare.SideLetter(i+1), c.Conclusion))
	}
	return strings.Join(parts, "; ")
}

// multiLegend explains the columns of the multi-side table.
func multiLegend(mr *compare.Comparison) string {
	family := fmt.Sprintf("%d hypotheses", mr.Family)
	if mr.Family == 0 {
		family = "none here: published figures are untested"
	}
	return fmt.Sprintf("A is the baseline; median ± %.0f%% confidence interval; vs A = change against A (~: no significant difference), "+
		"[the %.0f%% interval of the change] where both sides are repetitions, and p adj = Mann-Whitney U test "+
		"Holm-corrected over every side's primary metrics together (%s; secondary metrics follow their primary, a negative control is judged alone); "+
		"verdict at α = %v on p adj", mr.Confidence*100, mr.Confidence*100, family, mr.Alpha)
}

// changeCell renders a side's change against the baseline: the delta (~
// when not significant), the interval of the change, and the adjusted p;
// "–" when the side lacks the metric.
func changeCell(m *compare.Metric) string {
	if m == nil {
		return none
	}
	parts := []string{metricDelta(*m)}
	if iv := changeInterval(*m); iv != "" {
		parts = append(parts, iv)
	}
	if m.PAdjusted != nil {
		p := pValue(*m.PAdjusted)
		if !strings.HasPrefix(p, "<") {
			p = "=" + p
		}
		parts = append(parts, "p"+p)
	}
	return strings.Join(parts, " ")
}

// valueCell renders a side's median and interval, "–" when it lacks the
// metric.
func valueCell(m *compare.Metric, published bool) string {
	if m == nil {
		return none
	}
	return Value(m.B, m.Unit, published)
}

// geomeanCell renders a side's geometric mean of the primary speedups,
// "" when it has none.
func geomeanCell(rep *compare.Report) string {
	g := rep.Geomean
	if g == nil {
		return ""
	}
	s := Speedup(g.Speedup)
	if g.Tested && !g.Significant {
		s += " (not significant)"
	}
	return s
}

// rowTitle is a row's workload and metric heading.
func rowTitle(r compare.Row) string {
	t := r.Workload.Title()
	if r.Workload.Control {
		t += "  (negative control)"
	}
	return t
}

// detailHint is the command that shows one side's whole pairwise report.
func detailHint(rep *compare.Report) string {
	return "sectax compare " + rep.A.Ref + " " + rep.B.Ref
}
