package stats

import "math"

// WarmupWindow is how many repetitions the warm-up rule looks at: a
// leading repetition and the WarmupWindow-1 that follow it.
const WarmupWindow = 5

// WarmupTolerance widens the range of the following repetitions, on each
// side and relative to them, before a leading one is called out of it: a
// difference under 1% is not a trend worth a repetition.
const WarmupTolerance = 0.01

// DetectWarmup says how many leading values of a series (a workload's
// primary metric in run order) are warm-up, by one rule: a leading value
// is warm-up when it lies outside the range of the WarmupWindow-1 values
// after it, widened by WarmupTolerance on each side; values are discarded
// until one is not (it and every later value are measured), at most
// limit of them. A decaying start is discarded until the series is flat;
// a flat or noisy flat series loses nothing (its first value lies within
// the range of the next four unless it is their extreme by more than
// 1%); an outlier later in the series is kept (no outlier deletion), one
// in the first place counts as warm-up.
//
// decided is false while the series is too short to say: the candidate
// (discard) needs WarmupWindow-1 values after it. A run that must end
// before then keeps the values from discard on.
func DetectWarmup(xs []float64, limit int) (discard int, decided bool) {
	for d := 0; ; d++ {
		if d >= limit {
			return max(limit, 0), true
		}
		if len(xs) < d+WarmupWindow {
			return d, false
		}
		if within(xs[d], xs[d+1:d+WarmupWindow]) {
			return d, true
		}
	}
}

// within says whether x lies in the range of next widened by
// WarmupTolerance of its bounds.
func within(x float64, next []float64) bool {
	lo, hi := next[0], next[0]
	for _, v := range next[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return x >= lo-WarmupTolerance*math.Abs(lo) && x <= hi+WarmupTolerance*math.Abs(hi)
}
