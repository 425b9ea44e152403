package report

import (
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

// Layout of a comparison of two or more sides (compare.Comparison), one
// layout for any number of sides (a pair is the case of one side against
// the baseline), as benchstat's one table: the sides named by letter (A
// is the baseline), a row per workload and metric, for each side its
// median and its change against A (the delta, the interval of the change
// and the adjusted p); then a section per side with its conclusion, what
// it means and its details (environment, notes, warnings), the pairwise
// reports' own.

// conclusionOf words the comparison in one line, the first of every
// format: each side's conclusion against the baseline (MultiConclusion).
func conclusionOf(c *compare.Comparison) string { return MultiConclusion(c) }

// legendOf explains the columns of the comparison's table; the HTML page's
// table has the raw p, the speedup and n itself (forHTML).
func legendOf(mr *compare.Comparison, forHTML bool) string {
	rest := "are in --format json, csv and html"
	if forHTML {
		rest = "are in the table's columns, and in --format json and csv"
	}
	family := fmt.Sprintf("%d hypotheses", mr.Family)
	if mr.Family == 0 {
		family = "none here: published figures are untested"
	}
	return fmt.Sprintf("A is the baseline; median ± %.0f%% confidence interval; vs A = change against A (~: no significant difference), "+
		"[the %.0f%% interval of the change] where both sides are repetitions, and p adj = Mann-Whitney U test "+
		"Holm-corrected over every side's primary metrics together (%s; secondary metrics follow their primary, a negative control is judged alone); "+
		"verdict at α = %v on p adj; equiv. = against the margin %s (--margin): within (the %.0f%% interval of the ratio lies inside it), "+
		"beyond (significant, and the %.0f%% interval lies outside), ? inconclusive, with (≥D%%) the smallest change the run could have detected at 80%% power; "+
		"the raw p, the speedup × and n of every test %s",
		mr.Confidence*100, mr.Confidence*100, family, mr.Alpha, marginText(mr.MarginPct), 100*(1-2*mr.Alpha), mr.Confidence*100, rest)
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
	if iv := speedupInterval(g.Interval); iv != "" {
		s += " " + iv
	}
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

// sideColumn is one of a side's columns in the table of the text and
// Markdown formats, the same for every side.
type sideColumn struct {
	// head is the column's heading (l is the side's letter).
	head func(l string) string
	// right aligns the column right; color colours a significant
	// difference (text), strong bolds it (Markdown).
	right, color, strong bool
	// cell renders the side's metric m (nil: the side lacks it), published
	// whether the side's figures are published.
	cell func(m *compare.Metric, published bool) string
}

// sideColumns are the columns of each side but the baseline: its median,
// and its change against A in one cell (changeCell).
var sideColumns = []sideColumn{
	{head: func(l string) string { return l }, right: true, cell: valueCell},
	{head: func(l string) string { return l + " vs A" }, color: true, strong: true,
		cell: func(m *compare.Metric, _ bool) string { return changeCell(m) }},
	{head: func(l string) string { return l + " equiv." },
		cell: func(m *compare.Metric, _ bool) string { return equivalenceCell(m) }},
}

// marked reports whether m differs significantly (its cells coloured or
// bold).
func marked(m *compare.Metric) bool {
	return m != nil && (m.Verdict == compare.VerdictBetter || m.Verdict == compare.VerdictWorse)
}
