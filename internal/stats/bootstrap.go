package stats

import (
	"math"
	"math/rand/v2"
	"sort"
)

// BootstrapReps is how many resamplings BootstrapMedians draws.
const BootstrapReps = 4000

// BootstrapMedians returns f of the medians of groups, and the 95%
// percentile-bootstrap interval of it: every group is resampled with
// replacement, independently, BootstrapReps times, and f is applied to the
// medians of each resampling. It is the interval of a quantity derived
// from several independently measured samples (the fixed and per-loop
// parts of a total measured at two loop counts, their ratios between two
// engines), for which no order-statistic interval exists. The resampling
// is seeded from the sizes of the groups, so the interval is reproducible.
// ok is false when a group has fewer than 2 values, or when f is not
// finite at the medians.
func BootstrapMedians(groups [][]float64, f func(medians []float64) float64) (center, lo, hi float64, ok bool) {
	med := make([]float64, len(groups))
	seed := uint64(len(groups))
	for i, g := range groups {
		if len(g) < 2 {
			return math.NaN(), math.NaN(), math.NaN(), false
		}
		med[i] = Summarize(g).Center // the median the reports print
		seed = seed*1000003 + uint64(len(g))
	}
	center = f(med)
	if math.IsNaN(center) || math.IsInf(center, 0) {
		return center, math.NaN(), math.NaN(), false
	}
	rng := rand.New(rand.NewPCG(seed, 20))
	vals := make([]float64, 0, BootstrapReps)
	buf := make([]float64, 0, 64)
	for range BootstrapReps {
		for i, g := range groups {
			buf = buf[:0]
			for range g {
				buf = append(buf, g[rng.IntN(len(g))])
			}
			sort.Float64s(buf)
			med[i] = median(buf)
		}
		if v := f(med); !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	if len(vals) < BootstrapReps*95/100 {
		return center, math.NaN(), math.NaN(), false
	}
	sort.Float64s(vals)
	at := func(q float64) float64 { return vals[min(len(vals)-1, int(q*float64(len(vals))))] }
	return center, at(0.025), at(0.975), true
}

// median of sorted values (the middle one, or the mean of the middle two).
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
