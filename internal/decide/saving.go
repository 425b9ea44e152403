package decide

import (
	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/stats"
)

// Claims of a saving: which of three it is.
const (
	// ClaimSaves: the saving is significant (after the correction): "saves
	// X% [lo, hi]".
	ClaimSaves = "saves"
	// ClaimNothing: the change is within the margin (its (1−2α) interval
	// lies inside ±M%): "costs nothing beyond ±M% here".
	ClaimNothing = "nothing-beyond-margin"
	// ClaimImprecise: neither: the runs could not have seen a change below
	// DetectablePct, and Remeasure would measure it precisely enough.
	ClaimImprecise = "imprecise"
)

// savingOf is what the option of config saves on one workload: the tax
// of keep-all against it (e, from attribute's comparison of on and the
// configuration), and which of the three claims it supports. A change
// within the margin is ClaimNothing even when it is significant: for the
// decision it is too small to keep the protection for.
func savingOf(wa attribute.WorkloadAttribution, e attribute.Effect, in Input) Saving {
	s := Saving{Workload: wa.Workload, Params: wa.Params, Metric: wa.Metric,
		Pct: e.TaxPct, Interval: e.TaxPctInterval, Significant: e.Significant, N: e.N,
		Equivalence: e.Equivalence, DetectablePct: e.DetectablePct}
	switch {
	case e.Equivalence != nil && e.Equivalence.Verdict == stats.EquivWithin:
		s.Claim = ClaimNothing
	case e.Significant:
		s.Claim = ClaimSaves
	default:
		s.Claim = ClaimImprecise
		s.Remeasure = measureWith(in, remeasurePrecision(in))
	}
	return s
}

// remeasurePrecision is the --precision that would let a comparison see a
// change of the margin: the interval of a ratio is about √2 times as wide
// as its sides' intervals of the median, and a change is detected at 80%
// power when it is about 1.43 times the ratio's 95% half-width
// (stats.DetectablePct), so each side's median to ±M/2.
func remeasurePrecision(in Input) float64 {
	m := in.MarginPct
	if m == 0 {
		m = stats.DefaultMarginPct
	}
	return max(0.1, m/2) // --precision is at least 0.1
}
