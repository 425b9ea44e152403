package stats

import "math"

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
// ±achieved% after n repetitions is expected to be ±target%: its width
// shrinks about as 1/√n, so n·(achieved/target)², rounded up (a product
// within 1e-9 of a whole number is that number), at most 1e9; fewer than
// n when the target is already met. 0 without a target.
func Projected(n int, achieved, target float64) int {
	if !(target > 0) || math.IsNaN(achieved) {
		return 0
	}
	need := math.Ceil(float64(max(n, 1))*(achieved/target)*(achieved/target) - 1e-9)
	if need > 1e9 || math.IsInf(need, 0) {
		return 1e9
	}
	return max(int(need), 1)
}
