package stats

import (
	"fmt"
	"math"

	mstats "github.com/aclements/go-moremath/stats"
)

// DefaultMarginPct is the equivalence margin M, in percent, unless
// --margin says otherwise: a change within ±M% is "no tax" for the
// decision sectax supports.
const DefaultMarginPct = 2.0

// Power is the probability at which DetectablePct's change would have
// been detected.
const Power = 0.80

// Equivalence verdicts of a metric against a margin.
const (
	// EquivWithin: the (1−2α) interval of the ratio lies inside
	// [1/(1+M), 1+M]: two one-sided tests at α each reject a change of M
	// or more in either direction.
	EquivWithin = "within"
	// EquivBeyond: the change is significant and its (1−α) interval lies
	// wholly outside [1/(1+M), 1+M].
	EquivBeyond = "beyond"
	// EquivInconclusive: neither (the data cannot tell which).
	EquivInconclusive = "inconclusive"
)

// CheckMargin refuses an equivalence margin outside (0, 100] percent.
func CheckMargin(pct float64) error {
	if !(pct > 0 && pct <= 100) {
		return fmt.Errorf("margin %v%% is out of range: it must be above 0 and at most 100 (percent), typically 2", pct)
	}
	return nil
}

// MarginBand is the band of ratios B/A a margin of pct percent allows:
// [1/(1+M), 1+M], symmetric on the log scale (a side 2% slower and one 2%
// faster are as far from no change).
func MarginBand(pct float64) (lo, hi float64) {
	hi = 1 + pct/100
	return 1 / hi, hi
}

// EquivalenceVerdict judges a change against the margin pct: EquivWithin
// when tost, the (1−2α) interval of the ratio B/A, lies inside the band
// (MarginBand); EquivBeyond when the change is significant and ci, its
// (1−α) interval, lies wholly outside it; EquivInconclusive otherwise,
// and whenever the needed interval is missing (nil).
func EquivalenceVerdict(tost, ci *Interval, significant bool, pct float64) string {
	lo, hi := MarginBand(pct)
	switch {
	case tost != nil && tost.Lo > lo && tost.Hi < hi:
		return EquivWithin
	case significant && ci != nil && (ci.Lo > hi || ci.Hi < lo):
		return EquivBeyond
	}
	return EquivInconclusive
}

// DetectablePct is the smallest change, in percent, that a U test at
// alpha would have found significant with probability Power, given the
// interval ci of the ratio B/A at the given confidence (the interval
// holds the run's sample sizes and spread): in the normal approximation
// of the log of the ratio, the interval's half-width is z((1+c)/2)·se,
// and a change of (z(1−α/2) + z(Power))·se is detected with probability
// Power. It is NaN when ci is not a positive interval.
func DetectablePct(ci Interval, confidence, alpha float64) float64 {
	if !(ci.Lo > 0 && ci.Hi >= ci.Lo) || math.IsInf(ci.Hi, 0) || confidence <= 0 || confidence >= 1 {
		return math.NaN()
	}
	z := mstats.StdNormal.InvCDF
	se := (math.Log(ci.Hi) - math.Log(ci.Lo)) / (2 * z((1+confidence)/2))
	return (math.Exp((z(1-alpha/2)+z(Power))*se) - 1) * 100
}
