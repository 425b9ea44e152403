package stats

import (
	"math"
	"sort"

	mstats "github.com/aclements/go-moremath/stats"
)

// RatioInterval is the distribution-free confidence interval of the ratio
// B/A that goes with the Mann-Whitney U test: the Hodges-Lehmann interval
// of the shift between log(B) and log(A), from the order statistics of the
// n1·n2 pairwise differences, with the cut-off from the exact U
// distribution (no ties assumed). ok is false when the samples are too
// small for an interval at this confidence, or not all positive.
func RatioInterval(a, b []float64, confidence float64) (lo, hi float64, ok bool) {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 || confidence <= 0 || confidence >= 1 {
		return 0, 0, false
	}
	diffs := make([]float64, 0, n1*n2)
	for _, x := range a {
		for _, y := range b {
			if x <= 0 || y <= 0 || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				return 0, 0, false
			}
			diffs = append(diffs, math.Log(y)-math.Log(x))
		}
	}
	sort.Float64s(diffs)
	// c is the largest count with P(U ≤ c-1) ≤ (1-confidence)/2; the
	// interval runs from the c-th smallest to the c-th largest difference.
	tail := (1 - confidence) / 2
	d := mstats.UDist{N1: n1, N2: n2}
	c := 0
	for c < n1*n2 && d.CDF(float64(c)) <= tail {
		c++
	}
	if c == 0 || c > len(diffs)-c+1 {
		return 0, 0, false
	}
	return math.Exp(diffs[c-1]), math.Exp(diffs[len(diffs)-c]), true
}
