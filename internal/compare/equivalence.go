package compare

import (
	"math"

	"github.com/sectax/sectax/internal/stats"
)

// ratioInterval is the interval of the ratio B/A at the given confidence
// that goes with the U test (stats.RatioInterval), nil when the samples
// are too few for one or it is not finite.
func ratioInterval(sa, sb []float64, confidence float64) *Interval {
	lo, hi, ok := stats.RatioInterval(sa, sb, confidence)
	if !ok || finite(lo) == nil || finite(hi) == nil {
		return nil
	}
	return &Interval{Lo: lo, Hi: hi}
}

// judgeEquivalence sets each tested metric's verdict against the margin
// and the smallest change it could have detected, after the correction
// (a change is "beyond" only when it is significant after it). Each
// metric's equivalence is judged at α alone: an equivalence claim is one
// workload's. The detectable change of a metric of the Holm family (of
// family hypotheses) is at α/family, the level Holm's first step holds
// a p to, so that it bounds what the corrected test could see; a negative
// control's, judged alone, at α.
func (rep *Report) judgeEquivalence(family int) {
	for wi := range rep.Workloads {
		for mi := range rep.Workloads[wi].Metrics {
			m := &rep.Workloads[wi].Metrics[mi]
			if m.Equivalence == nil {
				continue
			}
			m.Equivalence.Verdict = stats.EquivalenceVerdict((*stats.Interval)(m.Equivalence.RatioInterval),
				(*stats.Interval)(m.RatioInterval), m.Significant, rep.MarginPct)
			if m.RatioInterval != nil {
				alpha := rep.Alpha
				if m.Role != RoleControl && family > 1 {
					alpha /= float64(family)
				}
				m.DetectablePct = finite(stats.DetectablePct(stats.Interval(*m.RatioInterval), rep.Confidence, alpha))
			}
		}
	}
}

// equivalenceCount counts the primary metrics of the workloads that are
// not negative controls by their verdict; nil when none was judged.
func (rep *Report) equivalenceCount() *EquivalenceCount {
	c := EquivalenceCount{MarginPct: rep.MarginPct}
	judged := false
	for _, w := range rep.Workloads {
		if w.Control || len(w.Metrics) == 0 || w.Metrics[0].Equivalence == nil {
			continue
		}
		judged = true
		switch w.Metrics[0].Equivalence.Verdict {
		case stats.EquivWithin:
			c.Within++
		case stats.EquivBeyond:
			c.Beyond++
		default:
			c.Inconclusive++
		}
	}
	if !judged {
		return nil
	}
	return &c
}

// minBootstrap is the fewest samples (boots, or repetitions) a side needs
// of every workload for the speedup's interval: the fewest that give the
// median a distribution-free 95% interval (stats.Summarize, benchstat's
// 6). With fewer, a resampled median takes a handful of values and the
// bootstrap's interval is far narrower than the truth (2 boots: three
// possible medians).
const minBootstrap = 6

// speedupInterval is the 95% interval of the geometric mean of the
// primary speedups (of one workload's speedup when there is one): a
// percentile bootstrap that resamples each side's samples of each
// workload (its boots when the side spans several, else its
// repetitions), seeded by the sample sizes and so reproducible
// (stats.BootstrapMedians). nil for published figures, or when a side
// holds fewer than minBootstrap samples of a workload.
func (rep *Report) speedupInterval(a, b Side) *stats.Interval {
	if a.Published() || b.Published() || len(rep.primaries) == 0 {
		return nil
	}
	groups := make([][]float64, 0, 2*len(rep.primaries))
	for _, p := range rep.primaries {
		if len(p.a) < minBootstrap || len(p.b) < minBootstrap {
			return nil
		}
		groups = append(groups, p.a, p.b)
	}
	ratios := make([]float64, len(rep.primaries))
	_, lo, hi, ok := stats.BootstrapMedians(groups, func(med []float64) float64 {
		for i, p := range rep.primaries {
			ratios[i] = stats.Speedup(med[2*i], med[2*i+1], p.higher)
		}
		g, ok := stats.GeoMean(ratios)
		if !ok {
			return math.NaN()
		}
		return g
	})
	if !ok || finite(lo) == nil || finite(hi) == nil || lo <= 0 {
		return nil
	}
	return &stats.Interval{Lo: lo, Hi: hi}
}
