package report

import (
	"github.com/sectax/sectax/internal/compare"
)

// changeInterval renders the interval of the change of B against A in
// percent ("[−65.1%, −62.0%]"), when the report has one (both sides'
// samples are repetitions).
func changeInterval(m compare.Metric) string {
	if m.RatioInterval == nil {
		return ""
	}
	lo, hi := m.RatioInterval.ChangePct()
	return "[" + pct(lo) + ", " + pct(hi) + "]"
}
