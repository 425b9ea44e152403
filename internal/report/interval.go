package report

import (
	"fmt"
	"strconv"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/stats"
)

// none is the one mark of a cell with nothing to show (an en dash, in
// every format).
const none = "–"

// orDash is s, or none for a cell with nothing to show.
func orDash(s string) string {
	if s == "" {
		return none
	}
	return s
}

// intervalPct renders an interval of percentages ("[−65.12%, −62.03%]"):
// the one spelling of an interval in the reports, its bounds in the one
// form of a percentage (stats.FormatPct), as the change it goes with.
func intervalPct(lo, hi float64) string {
	return "[" + stats.FormatPct(lo) + ", " + stats.FormatPct(hi) + "]"
}

// valueInterval renders an interval of values in the metric's unit
// ("1.05 – 1.134"), its bounds in report's number format (Num).
func valueInterval(lo, hi float64) string {
	return Num(lo) + " – " + Num(hi)
}

// pctInterval renders an interval of percentages of a model (a tax, a
// change), none when the model has none.
func pctInterval(iv *stats.Interval) string {
	if iv == nil {
		return none
	}
	return intervalPct(iv.Lo, iv.Hi)
}

// delta is benchstat's column of a change: "~" when the test found no
// significant change, else the signed change in percent (stats.FormatPct;
// published figures, untested, show their change).
func delta(notSignificant bool, changePct float64) string {
	if notSignificant {
		return "~"
	}
	return stats.FormatPct(changePct)
}

// metricDelta is delta of a compared metric: "~" when its verdict is
// (after the correction for multiple testing).
func metricDelta(m compare.Metric) string {
	return delta(m.Verdict == compare.VerdictSame, m.ChangePct)
}

// changeInterval renders the interval of the change of B against A in
// percent, when compare computed one (both sides of one unit: repetitions,
// or per-boot medians with the boot as the unit); "" otherwise.
func changeInterval(m compare.Metric) string {
	if m.RatioInterval == nil {
		return ""
	}
	return intervalPct(m.RatioInterval.ChangePct())
}

// marginText is an equivalence margin in percent ("±2%").
func marginText(pct float64) string {
	return "±" + strconv.FormatFloat(pct, 'f', -1, 64) + "%"
}

// detectableText is the smallest change a test could have detected, in
// percent ("4.1%").
func detectableText(pct float64) string { return fmt.Sprintf("%.1f%%", pct) }

// equivalenceCell renders a metric's verdict against the margin: "within
// ±2%", "beyond ±2%", or "? (≥4.1%)" when inconclusive, with the smallest
// change the run could have detected; none when untested.
func equivalenceCell(m *compare.Metric) string {
	if m == nil || m.Equivalence == nil {
		return none
	}
	switch m.Equivalence.Verdict {
	case stats.EquivWithin, stats.EquivBeyond:
		return m.Equivalence.Verdict + " " + marginText(m.Equivalence.MarginPct)
	}
	if m.DetectablePct != nil {
		return "? (≥" + detectableText(*m.DetectablePct) + ")"
	}
	return "?"
}

// speedupInterval renders the 95% interval of a speedup ("[1.20×,
// 1.31×]"), "" without one.
func speedupInterval(iv *stats.Interval) string {
	if iv == nil {
		return ""
	}
	return "[" + Speedup(iv.Lo) + ", " + Speedup(iv.Hi) + "]"
}
