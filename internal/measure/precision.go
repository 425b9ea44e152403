package measure

import (
	"time"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// Rule is the stopping rule of a run's rounds, decided between rounds.
// Under the count rule (TargetPct 0) each item has its Repetitions.
// Under the precision rule an item's Repetitions are its minimum; after
// it, the item runs another round while its primary metric's 95%
// interval is wider than ±TargetPct of its median, until MaxTime (from
// the start of the run) is up or it has had MaxReps. The rule looks at
// the interval's width only, never at a comparison's significance, so
// that stopping cannot bias a later comparison towards a difference
// (docs/statistics.md).
type Rule struct {
	TargetPct float64
	MaxTime   time.Duration
	MaxReps   int
}

// itemState is what the rule knows of one item between rounds.
type itemState struct {
	// Attempted counts the measured repetitions tried (failed ones
	// included); Min is the item's minimum (its Repetitions).
	Attempted, Min int
	// Primary are the measured samples of its primary metric (set by
	// record, which keeps their interval's half-width: the rule asks for
	// it before every round and every progress line).
	Primary []float64
	width   float64
	hasCI   bool
	// Dropped is set after consecutive failures; Warming while its
	// detected warm-up is undecided.
	Dropped, Warming bool
	// Typical is how long one of its repetitions has taken (0: none yet).
	Typical time.Duration
}

// record sets the primary metric's samples and their precision.
func (it *itemState) record(primary []float64) {
	it.Primary = primary
	it.width, it.hasCI = stats.HalfWidthPct(primary)
}

// Next returns the items that run in the next round after elapsed since
// the run started (ascending, an item once per repetition it gets), and
// whether the precision rule's time is up (then none runs).
//
// Under the count rule an item gets one repetition a round. Under the
// precision rule an item whose repetitions take a known time gets up to
// what it still needs — the rest of its minimum, the repetitions its
// warm-up detection looks at (stats.WarmupWindow), or, past its minimum,
// the repetitions its interval projects for the target (stats.Projected)
// — but no more than fit in the time of one repetition of the slowest
// item in the round: a 0.5 s workload is not held to one repetition per
// 60 s build, and every round still holds every item it runs, so drift
// hits them alike. The runner stops giving an item its round's
// repetitions once it meets the target (it asks wants before each).
func (r Rule) Next(items []itemState, elapsed time.Duration) (next []int, timeUp bool) {
	if r.TargetPct > 0 && elapsed >= r.MaxTime {
		return nil, true
	}
	var slowest time.Duration
	for _, it := range items {
		if r.wants(it) {
			slowest = max(slowest, it.Typical)
		}
	}
	for i, it := range items {
		for range r.batch(it, slowest) {
			next = append(next, i)
		}
	}
	return next, false
}

// batch is how many repetitions it gets in a round whose slowest item
// takes slowest a repetition (Next).
func (r Rule) batch(it itemState, slowest time.Duration) int {
	if !r.wants(it) {
		return 0
	}
	if r.TargetPct <= 0 || it.Typical <= 0 {
		return 1
	}
	var k int
	switch {
	case it.Warming:
		k = stats.WarmupWindow
	case it.Attempted < it.Min:
		k = it.Min - it.Attempted
	case !it.hasCI:
		k = 1
	default:
		k = stats.Projected(len(it.Primary), it.width, r.TargetPct) - len(it.Primary)
	}
	k = min(k, int(slowest/it.Typical))
	if r.MaxReps > 0 {
		k = min(k, r.MaxReps-it.Attempted)
	}
	return max(k, 1)
}

// wants reports whether it still wants a repetition: the runner asks
// before each of an item's repetitions in a round.
func (r Rule) wants(it itemState) bool {
	switch {
	case it.Dropped:
		return false
	case r.MaxReps > 0 && it.Attempted >= r.MaxReps:
		return false
	case it.Warming, it.Attempted < it.Min:
		return true
	case r.TargetPct <= 0:
		return false
	}
	return !it.hasCI || it.width > r.TargetPct
}

// Stopping is the stopping block of an item once its rounds are over
// (interrupted: the run was cut short by Ctrl-C).
func (r Rule) Stopping(it itemState, interrupted bool) run.Stopping {
	var s run.Stopping
	if it.hasCI {
		pct := it.width
		s.AchievedPct = &pct
	}
	if r.TargetPct <= 0 {
		s.Rule, s.Reason = run.RuleCount, run.ReasonCount
		switch {
		case it.Dropped:
			s.Reason = run.ReasonFailed
		case interrupted && it.Attempted < it.Min:
			s.Reason = run.ReasonInterrupted
		}
		return s
	}
	target := r.TargetPct
	s.Rule, s.TargetPct = run.RulePrecision, &target
	switch {
	case s.AchievedPct != nil && *s.AchievedPct <= target && it.Attempted >= it.Min:
		s.Reason = run.ReasonReached
	case it.Dropped:
		s.Reason = run.ReasonFailed
	case interrupted:
		s.Reason = run.ReasonInterrupted
	case r.MaxReps > 0 && it.Attempted >= r.MaxReps:
		s.Reason = run.ReasonMaxRuns
	default:
		s.Reason = run.ReasonMaxTime
	}
	return s
}

// remaining is how many more measured repetitions of it are known to
// come, and whether more may (the rule decides them).
func (r Rule) remaining(it itemState) (n int, open bool) {
	if it.Dropped || (r.MaxReps > 0 && it.Attempted >= r.MaxReps) {
		return 0, false
	}
	n = max(it.Min-it.Attempted, 0)
	after := it
	after.Attempted = max(it.Attempted, it.Min)
	return n, it.Warming || (r.TargetPct > 0 && r.wants(after))
}

// expectedMore is the rule's guess of the repetitions an item still
// needs beyond its minimum (stats.RepetitionsFor from its current
// interval; 0 when none is known yet).
func (r Rule) expectedMore(it itemState) int {
	if r.TargetPct <= 0 || it.Dropped {
		return 0
	}
	if !it.hasCI {
		return 0
	}
	n := len(it.Primary)
	need := stats.RepetitionsFor(n, it.width, r.TargetPct) - max(n, it.Min)
	if r.MaxReps > 0 {
		need = min(need, r.MaxReps-it.Attempted)
	}
	return max(need, 0)
}
