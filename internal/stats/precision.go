package stats

import (
	"math"

	mstats "github.com/aclements/go-moremath/stats"
)

// HalfWidthPct is the precision of a median: the half-width of its 95%
// confidence interval in percent of the median, on the wider side (as
// the high-variance check measures it). ok is false when there is no
// interval (fewer than 6 values) or the median is 0: no precision is
// known, so no precision target is met.
func HalfWidthPct(xs []float64) (pct float64, ok bool) {
	s := Summarize(xs)
	if !s.HasCI || s.Center == 0 || math.IsNaN(s.Center) {
		return 0, false
	}
	return 100 * s.RelSpread(), true
}

// RepetitionsFor estimates how many repetitions would bring a median
// whose interval is ±achieved% after n repetitions to ±target%
// (Projected, rounded up), at least n+1 when the target is not met (n
// when it is). A figure for people ("about 40 would reach it"), not a
// promise: the order statistics move in steps, and drift does not shrink
// at all.
func RepetitionsFor(n int, achieved, target float64) int {
	if n < 1 {
		n = 1
	}
	if !(target > 0) || math.IsNaN(achieved) || achieved <= target {
		return n
	}
	return max(Projected(n, achieved, target), n+1)
}

// Projected is the repetitions at which the interval of a median that is
// ±achieved% after n repetitions is expected to be ±target%: the fewest
// n' whose expected half-width (halfWidthUnits) is within target/achieved
// of n's. Not n·(achieved/target)²: at a handful of samples the order
// statistics that bound the interval are the extremes, at a level above
// 95% (96.9% at 6), and the interval narrows faster than 1/√n as n grows
// (seeded lognormal samples: 0.234 of its width at 10 by 100, where 1/√n
// says 0.316; this model 0.253). At least 6 (no interval of a median
// below), at most 1e9; fewer than n when the target is already met. 0
// without a target.
func Projected(n int, achieved, target float64) int {
	if !(target > 0) || math.IsNaN(achieved) || math.IsInf(achieved, 0) || achieved < 0 {
		return 0
	}
	goal := halfWidthUnits(max(n, minCISamples)) * target / achieved
	// The interval is never narrower than a 95% one of a normal median
	// (halfWidthAsymptote/√n), so no fewer than from can reach goal.
	from := (halfWidthAsymptote / goal) * (halfWidthAsymptote / goal)
	if from > 1e9 {
		return 1e9
	}
	m := max(int(from), minCISamples)
	if m <= 64 {
		for m = minCISamples; m < 128; m++ { // small n: the width is not monotone in n
			if halfWidthUnits(m) <= goal {
				return m
			}
		}
		return m
	}
	// Far out it decreases (in steps): the first m in [m, 2m] that meets it.
	lo, hi := m, 2*m+minCISamples
	for lo < hi {
		mid := lo + (hi-lo)/2
		if halfWidthUnits(mid) <= goal {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return min(lo, 1e9)
}

// minCISamples is the fewest samples with a 95% interval of a median.
const minCISamples = 6

// halfWidthAsymptote is the half-width of a 95% interval of the median of
// n normal samples, in standard deviations, times √n: 1.96·√(π/2).
const halfWidthAsymptote = 1.959963984540054 * 1.2533141373155001

// halfWidthUnits is the expected half-width of the 95% interval of a
// median of n samples, in standard deviations of normal samples: the mean
// distance from the median of the order statistics that bound it (as
// benchmath picks them: go-moremath's QuantileCI), each at Blom's
// position Φ⁻¹((i − 0.375)/(n + 0.25)). +Inf below 6 samples.
func halfWidthUnits(n int) float64 {
	ci := mstats.QuantileCI(n, 0.5, Confidence)
	if ci.LoOrder < 1 || ci.HiOrder > n {
		return math.Inf(1)
	}
	at := func(i int) float64 { return mstats.StdNormal.InvCDF((float64(i) - 0.375) / (float64(n) + 0.25)) }
	return (at(ci.HiOrder) - at(ci.LoOrder)) / 2
}
