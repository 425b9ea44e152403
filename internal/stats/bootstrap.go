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
	// A resampling draws indices into each group; its median depends only
	// on how often each rank is drawn, so the draws are counted by the
	// rank of the value drawn and the median read off the counts: O(n) a
	// resampling instead of a sort, and the very values a sort of the
	// drawn values gives.
	sorted := make([][]float64, len(groups))
	ranks := make([][]int, len(groups))
	for i, g := range groups {
		sorted[i], ranks[i] = rankOf(g)
	}
	vals := make([]float64, 0, BootstrapReps)
	counts := make([]int, 0, 64)
	for range BootstrapReps {
		for i, g := range groups {
			counts = counts[:0]
			counts = append(counts, make([]int, len(g))...)
			for range g {
				counts[ranks[i][rng.IntN(len(g))]]++
			}
			med[i] = countedMedian(sorted[i], counts)
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

// rankOf returns g sorted, and for each value of g its position in the
// sorted copy (equal values get distinct positions).
func rankOf(g []float64) ([]float64, []int) {
	idx := make([]int, len(g))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return g[idx[a]] < g[idx[b]] })
	sorted := make([]float64, len(g))
	rank := make([]int, len(g))
	for pos, i := range idx {
		sorted[pos], rank[i] = g[i], pos
	}
	return sorted, rank
}

// countedMedian is the median (the middle value, or the mean of the middle
// two) of the sample that holds sorted[k] counts[k] times.
func countedMedian(sorted []float64, counts []int) float64 {
	n := 0
	for _, c := range counts {
		n += c
	}
	// at returns the value of rank r (0-based) of the sample.
	at := func(r int) float64 {
		for k, c := range counts {
			if r < c {
				return sorted[k]
			}
			r -= c
		}
		return math.NaN()
	}
	if n%2 == 1 {
		return at(n / 2)
	}
	return (at(n/2-1) + at(n/2)) / 2
}
