package report

import (
	"github.com/sectax/sectax/internal/compare"
)

// changeInterval renders the interval of the change of B against A in
// percent ("[−65.1%, −62.0%]"), when compare computed one (both sides
// of one unit: repetitions, or per-boot medians with the boot as the unit).
func changeInterval(m compare.Metric) string {
	if m.RatioInterval == nil {
		return ""
	}
	lo, hi := m.RatioInterval.ChangePct()
	return "[" + pct(lo) + ", " + pct(hi) + "]"
}

// dashIfEmpty is s, or "–" for a cell with nothing to show.
func dashIfEmpty(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
