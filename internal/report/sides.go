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
// format: each side's conclusion against the baseline (MultiConclusion).
func conclusionOf(c *compare.Comparison) string { return MultiConclusion(c) }

// legendOf explains the columns of the comparison's table.
func legendOf(c *compare.Comparison) string {
	if alone(c) {
		return legend(c.Comparisons[0])
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

// alone reports whether the comparison has one side besides the baseline
// (a pair): that side is the whole comparison, so its columns have room
// for the whole test, and what it means and its environment follow the
// table in full; beside other sides each gets a short section and the
// command that shows it alone (detailHint).
func alone(c *compare.Comparison) bool { return len(c.Comparisons) == 1 }

// sideColumn is one of a side's columns in the table of the text and
// Markdown formats, the same for every side.
type sideColumn struct {
	// head is the column's heading (l is the side's letter); mdHead the
	// Markdown one where it differs.
	head   func(l string) string
	mdHead string
	// right aligns the column right; color colours a significant
	// difference (text), strong bolds it (Markdown).
	right, color, strong bool
	// mdRaw is a cell of figures sectax wrote, put in Markdown as it is.
	mdRaw bool
	// cell renders the side's metric m (nil: the side lacks it), published
	// whether the side's figures are published.
	cell func(m *compare.Metric, published bool) string
}

// sideColumns are the columns of each side but the baseline: for a side
// alone its median, change, speedup, p, p adj, n and verdict; beside
// others its median and its change against A in one cell (changeCell).
func sideColumns(c *compare.Comparison) []sideColumn {
	value := sideColumn{head: func(l string) string { return l }, right: true, cell: valueCell}
	if !alone(c) {
		return []sideColumn{value, {head: func(l string) string { return l + " vs A" }, color: true, strong: true,
			cell: func(m *compare.Metric, _ bool) string { return changeCell(m) }}}
	}
	test := func(head string, f func(compare.Metric) string) sideColumn {
		return sideColumn{head: func(string) string { return head }, right: true, mdRaw: true, cell: func(m *compare.Metric, _ bool) string {
			if m == nil {
				return none
			}
			return f(*m)
		}}
	}
	change, speedup := test("change", metricDelta), test("×", func(m compare.Metric) string { return Speedup(m.Speedup) })
	change.color, speedup.mdHead = true, "speedup"
	verdict := test("verdict", func(m compare.Metric) string { return m.Verdict })
	verdict.right, verdict.color, verdict.strong = false, true, true
	return []sideColumn{value, change, speedup, test("p", P), test("p adj", PAdj), test("n", N), verdict}
}

// marked reports whether m differs significantly (its cells coloured or
// bold).
func marked(m *compare.Metric) bool {
	return m != nil && (m.Verdict == compare.VerdictBetter || m.Verdict == compare.VerdictWorse)
}
