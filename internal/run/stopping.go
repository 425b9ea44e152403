package run

import "math"

// The stopping rules of a result (Stopping.Rule).
const (
	// RuleCount measures a fixed number of repetitions (--runs).
	RuleCount = "count"
	// RulePrecision repeats until the primary metric's 95% interval is
	// within ±TargetPct of its median (--precision).
	RulePrecision = "precision"
)

// Why a result's repetitions ended (Stopping.Reason).
const (
	ReasonCount       = "count"       // the fixed count was measured
	ReasonReached     = "reached"     // the precision target was met
	ReasonMaxTime     = "max-time"    // --max-time was up first
	ReasonMaxRuns     = "max-runs"    // the most repetitions a workload may have
	ReasonInterrupted = "interrupted" // Ctrl-C
	ReasonFailed      = "failed"      // dropped after consecutive failures
)

// The warm-up rules of a result (WarmupRecord.Rule).
const (
	WarmupCount  = "count"  // --warmup N repetitions, discarded
	WarmupDetect = "detect" // leading repetitions discarded until no trend (stats.DetectWarmup)
)

// MaxWarmupDiscarded bounds a recorded warm-up (plan.MaxWarmup).
const MaxWarmupDiscarded = 1000

// Stopping is why a result has the repetitions it has, and the precision
// its primary metric reached.
type Stopping struct {
	Rule string `json:"rule"`
	// TargetPct is the --precision target (null under the count rule).
	TargetPct *float64 `json:"target_pct"`
	// AchievedPct is the half-width of the primary metric's 95% interval
	// in percent of its median (null with too few samples for one).
	AchievedPct *float64 `json:"achieved_pct"`
	Reason      string   `json:"reason"`
}

// WarmupRecord is how a result's warm-up ended: by which rule, and how
// many repetitions were discarded.
type WarmupRecord struct {
	Rule      string `json:"rule"`
	Discarded int    `json:"discarded"`
}

func (s *Stopping) validate(p string) error {
	if s == nil {
		return nil
	}
	p += ".stopping"
	reasons := map[string][]string{
		RuleCount:     {ReasonCount, ReasonInterrupted, ReasonFailed},
		RulePrecision: {ReasonReached, ReasonMaxTime, ReasonMaxRuns, ReasonInterrupted, ReasonFailed},
	}
	ok, known := reasons[s.Rule]
	if !known {
		return invalid(p+".rule", "%s is not precision or count", quote(s.Rule))
	}
	found := false
	for _, r := range ok {
		found = found || r == s.Reason
	}
	if !found {
		return invalid(p+".reason", "%s is not a reason of the %s rule", quote(s.Reason), s.Rule)
	}
	pct := func(name string, v *float64, limit float64) error {
		if v != nil && (math.IsNaN(*v) || *v < 0 || *v > limit) {
			return invalid(p+"."+name, "%v: must be a percentage from 0 to %v", *v, limit)
		}
		return nil
	}
	if err := pct("target_pct", s.TargetPct, 100); err != nil {
		return err
	}
	if err := pct("achieved_pct", s.AchievedPct, 1e9); err != nil {
		return err
	}
	switch {
	case s.Rule == RulePrecision && (s.TargetPct == nil || *s.TargetPct == 0):
		return invalid(p+".target_pct", "missing: the precision rule has a target above 0")
	case s.Rule == RuleCount && s.TargetPct != nil:
		return invalid(p+".target_pct", "the count rule has no target")
	case s.Reason == ReasonReached && (s.AchievedPct == nil || *s.AchievedPct > *s.TargetPct):
		return invalid(p+".achieved_pct", "the target ±%v%% is said reached, but the interval is not within it", *s.TargetPct)
	}
	return nil
}

func (w *WarmupRecord) validate(p string) error {
	if w == nil {
		return nil
	}
	p += ".warmup"
	if w.Rule != WarmupCount && w.Rule != WarmupDetect {
		return invalid(p+".rule", "%s is not count or detect", quote(w.Rule))
	}
	if w.Discarded < 0 || w.Discarded > MaxWarmupDiscarded {
		return invalid(p+".discarded", "%d: must be from 0 to %d", w.Discarded, MaxWarmupDiscarded)
	}
	return nil
}
