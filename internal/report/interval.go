package report

import (
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/stats"
)

// changeInterval renders the interval of the change of B against A in
// percent ("[−65.1%, −62.0%]"), when both sides' samples are repetitions
// (per-boot medians are too few, and published figures have none).
func changeInterval(rep *compare.Report, m compare.Metric) string {
	if rep.A.Unit != "repetition" || rep.B.Unit != "repetition" {
		return ""
	}
	lo, hi, ok := stats.RatioInterval(m.RawA, m.RawB, rep.Confidence)
	if !ok {
		return ""
	}
	return "[" + pct((lo-1)*100) + ", " + pct((hi-1)*100) + "]"
}
