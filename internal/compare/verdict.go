package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/stats"
)

// adjust sets each metric's role, adjusted p-value and final verdict in
// every report of the family: one hypothesis per workload and report (its
// primary metric), Holm–Bonferroni over the primary metrics of every
// report together, of the workloads that are not negative controls (a
// multi-side comparison is one family: every side's primaries against the
// baseline); a secondary metric is significant only when its primary one
// is and its own p is below α (its adjusted p is the larger of the two); a
// control is judged at α alone, since for a control a missed change is the
// costly error. It returns the size of the family.
func adjust(reps []*Report) int {
	type at struct {
		rep  *Report
		w, m int
	}
	var family []at
	var ps []float64
	for _, rep := range reps {
		for wi := range rep.Workloads {
			w := &rep.Workloads[wi]
			for mi := range w.Metrics {
				m := &w.Metrics[mi]
				switch {
				case w.Control:
					m.Role = RoleControl
				case mi == 0:
					m.Role = RolePrimary
				default:
					m.Role = RoleSecondary
				}
				if m.Role == RolePrimary && m.Test != nil {
					family = append(family, at{rep, wi, mi})
					ps = append(ps, m.Test.P)
				}
			}
		}
	}
	for k, p := range stats.Holm(ps) {
		f := family[k]
		m := &f.rep.Workloads[f.w].Metrics[f.m]
		m.PAdjusted = &p
		m.setVerdict(p <= f.rep.Alpha)
	}
	for _, rep := range reps {
		rep.followPrimaries()
	}
	return len(family)
}

// followPrimaries sets the adjusted p and verdict of the secondary metrics
// (after their primary one) and of the controls (alone).
func (rep *Report) followPrimaries() {
	for wi := range rep.Workloads {
		w := &rep.Workloads[wi]
		for mi := range w.Metrics {
			m := &w.Metrics[mi]
			if m.Test == nil || m.Role == RolePrimary {
				continue
			}
			p := m.Test.P
			sig := m.Test.Significant
			if m.Role == RoleSecondary {
				if prim := w.Metrics[0]; prim.PAdjusted != nil {
					p = math.Max(p, *prim.PAdjusted)
					sig = sig && prim.Significant
				}
			}
			m.PAdjusted = &p
			m.setVerdict(sig)
		}
	}
}

// runsDifferOnly rewords the verdicts when both sides share their
// mitigation settings: a significant difference is then one between the
// runs (drift, load, another change), so no metric is "better" or
// "worse"; every format shows VerdictDiffers.
func (rep *Report) runsDifferOnly() {
	if !rep.HasWarning(KindSameMitigations) {
		return
	}
	for wi := range rep.Workloads {
		for mi := range rep.Workloads[wi].Metrics {
			m := &rep.Workloads[wi].Metrics[mi]
			if m.Verdict == VerdictBetter || m.Verdict == VerdictWorse {
				m.Verdict = VerdictDiffers
			}
		}
	}
}

// significantPrimaries counts the primary metrics that differ
// significantly after the correction.
func (rep *Report) significantPrimaries() int {
	n := 0
	for _, w := range rep.Workloads {
		if len(w.Metrics) > 0 && w.Metrics[0].Role == RolePrimary && w.Metrics[0].Significant {
			n++
		}
	}
	return n
}

// smallestEffect is the smallest change (in percent, absolute) among the
// significant primary metrics; 0 when there is none.
func (rep *Report) smallestEffect() float64 {
	s := 0.0
	for _, w := range rep.Workloads {
		if len(w.Metrics) == 0 || w.Metrics[0].Role != RolePrimary || !w.Metrics[0].Significant {
			continue
		}
		if c := math.Abs(w.Metrics[0].ChangePct); !math.IsNaN(c) && !math.IsInf(c, 0) && (s == 0 || c < s) {
			s = c
		}
	}
	return s
}

// halfWidthPct is how far a metric's uncertainty reaches from no change,
// in percent: from the ratio interval when there is one, else from the
// wider of the two sides' median intervals; +Inf when a side has none.
func halfWidthPct(m Metric) float64 {
	if m.RatioInterval != nil {
		return m.RatioInterval.HalfWidthPct()
	}
	if !m.A.HasCI || !m.B.HasCI {
		return math.Inf(1)
	}
	return math.Max(m.A.RelSpread(), m.B.RelSpread()) * 100
}

func pctText(v float64) string {
	switch {
	case math.IsInf(v, 0):
		return "∞: no interval on a side"
	case v < 10:
		return fmt.Sprintf("%.1f%%", v)
	}
	return fmt.Sprintf("%.0f%%", v)
}

// controlCouldSee is the rule by which a control that did not move
// vouches, the equivalence rule of every metric with the change to see as
// its margin: the smallest change it could have detected (80% power) is at
// most needed, and its (1−2α) interval lies within ±needed.
func controlCouldSee(m Metric, needed float64) bool {
	if m.DetectablePct == nil || *m.DetectablePct > needed || m.Equivalence == nil {
		return false
	}
	return stats.EquivalenceVerdict((*stats.Interval)(m.Equivalence.RatioInterval), nil, false, needed) == stats.EquivWithin
}

// addControls judges the negative controls. A control that moved
// significantly flags the comparison as confounded. One that did not move
// vouches for the comparison only when it could have seen a change of the
// size reported (controlCouldSee): the smallest significant change among
// the primary metrics (or, when there is none, the high-variance
// threshold, stats.HighVariance); otherwise it is inconclusive, and a
// warning says why.
func (rep *Report) addControls() {
	needed := rep.smallestEffect()
	what := fmt.Sprintf("the smallest significant change reported, %s", pctText(needed))
	if needed == 0 {
		needed = stats.HighVariance * 100
		what = fmt.Sprintf("a change of %s (no significant change is reported)", pctText(needed))
	}
	for _, w := range rep.Workloads {
		if !w.Control || len(w.Metrics) == 0 {
			continue
		}
		moved := false
		for _, m := range w.Metrics {
			if m.Test == nil || !m.Test.Significant {
				continue
			}
			moved = true
			warn := warnControlMoved(w.ID, m)
			hw := halfWidthPct(m)
			rep.Controls = append(rep.Controls, ControlFinding{Workload: w.ID, Metric: m.Name, Status: ControlMoved,
				ChangePct: m.ChangePct, P: m.Test.P, HalfWidthPct: finite(hw), NeededPct: needed, Message: warn.Cause})
			rep.Warnings = append(rep.Warnings, warn)
		}
		m := w.Metrics[0]
		if moved {
			continue
		}
		if m.Test == nil {
			rep.Controls = append(rep.Controls, ControlFinding{Workload: w.ID, Metric: m.Name, Status: ControlUntested,
				ChangePct: m.ChangePct, P: 1, NeededPct: needed,
				Message: fmt.Sprintf("negative control %s: published figures, untested", w.ID)})
			continue
		}
		hw := halfWidthPct(m)
		f := ControlFinding{Workload: w.ID, Metric: m.Name, ChangePct: m.ChangePct, P: m.Test.P,
			HalfWidthPct: finite(hw), DetectablePct: m.DetectablePct, NeededPct: needed}
		if controlCouldSee(m, needed) {
			f.Status = ControlVouches
			f.Message = fmt.Sprintf("negative control %s did not move significantly (p=%.3f) although it could have seen %s "+
				"(it would have detected %s with 80%% power, and its interval lies within ±%s): "+
				"no sign that clock speed or load changed between the sides", w.ID, m.Test.P, what, pctText(*m.DetectablePct), pctText(needed))
		} else {
			detectable := math.Inf(1)
			if m.DetectablePct != nil {
				detectable = *m.DetectablePct
			}
			warn := warnControlInconclusive(w.ID, m.Test.P, detectable, what)
			f.Status, f.Message = ControlInconclusive, warn.Cause
			rep.Warnings = append(rep.Warnings, warn)
		}
		rep.Controls = append(rep.Controls, f)
	}
	rep.oneControlVerdict()
}

// oneControlVerdict keeps the controls' findings to one verdict on the
// comparison: when a control moved, the comparison is confounded, and a
// control that did not move no longer says there is no sign of a clock or
// load change ("What this means" and the warnings read the same findings).
func (rep *Report) oneControlVerdict() {
	var moved []string
	for _, c := range rep.Controls {
		if c.Status == ControlMoved && !slices.Contains(moved, c.Workload) {
			moved = append(moved, c.Workload)
		}
	}
	if len(moved) == 0 {
		return
	}
	for i := range rep.Controls {
		c := &rep.Controls[i]
		if c.Status != ControlVouches {
			continue
		}
		c.Message = fmt.Sprintf("negative control %s did not move significantly (p=%.3f), but %s moved: the comparison is confounded (see Warnings)",
			c.Workload, c.P, strings.Join(moved, " and "))
	}
}

// ControlsMoved reports whether a negative control moved significantly:
// the comparison is confounded.
func (rep *Report) ControlsMoved() bool {
	return slices.ContainsFunc(rep.Controls, func(c ControlFinding) bool { return c.Status == ControlMoved })
}

// addConclusion sums the comparison up in one line.
func (rep *Report) addConclusion() {
	c := Conclusion{Significant: rep.significantPrimaries(), SpecControls: rep.Env.SpecControls}
	if g := rep.Geomean; g != nil {
		c.Speedup, c.Workloads = g.Speedup, g.N
	} else {
		for _, w := range rep.Workloads {
			if !w.Control && len(w.Metrics) > 0 {
				if _, ok := impact(w.Metrics[0].Speedup); ok && w.Metrics[0].Speedup > 0 {
					c.Speedup, c.Workloads = w.Metrics[0].Speedup, 1
				}
				break
			}
		}
	}
	if c.Workloads > 0 && c.Workloads == len(rep.primaries) {
		c.SpeedupInterval = rep.speedupIv
	}
	c.Equivalence = rep.equivalenceCount()
	switch {
	case rep.HasWarning(KindSameMitigations):
		c.Kind = ConclusionSameMitigations
	case rep.A.Published || rep.B.Published:
		c.Kind = ConclusionUntested
	case c.Significant == 0:
		c.Kind = ConclusionNoDifference
	default:
		c.Kind = ConclusionDifference
	}
	rep.Conclusion = c
}
