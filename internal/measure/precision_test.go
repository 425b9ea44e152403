package measure

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/ui"
)

// state is an item with scripted primary samples.
func state(min, attempted int, xs ...float64) itemState {
	it := itemState{Min: min, Attempted: attempted}
	it.record(xs)
	return it
}

// timed is it with repetitions that take d.
func timed(it itemState, d time.Duration) itemState {
	it.Typical = d
	return it
}

var (
	near  = []float64{100, 100, 100, 100, 97.5, 102.5}          // ±2.5%
	tight = []float64{100, 100.5, 99.8, 100.2, 100.1, 99.9}     // ±0.5%
	loose = []float64{100, 110, 90, 105, 95, 120}               // ±20%
	six   = []float64{100, 100, 100, 100, 100, 100}             // ±0%
	three = []float64{100, 101, 99}                             // no interval
	wide7 = []float64{100, 110, 90, 105, 95, 120, 101}          // still wide
	many  = append(slices.Repeat([]float64{100}, 40), loose...) // wide early, tight now
)

func TestRuleNext(t *testing.T) {
	prec := Rule{TargetPct: 2, MaxTime: time.Minute, MaxReps: 100}
	count := Rule{MaxReps: 100}
	for _, c := range []struct {
		name    string
		rule    Rule
		items   []itemState
		elapsed time.Duration
		want    []int
		timeUp  bool
	}{
		{"count: below the minimum", count, []itemState{state(3, 2, 1, 2), state(3, 3, 1, 2, 3)}, 0, []int{0}, false},
		{"count: a wide interval does not matter", count, []itemState{state(6, 6, loose...)}, 0, nil, false},
		{"precision: the minimum first", prec, []itemState{state(6, 3, three...), state(6, 6, tight...)}, 0, []int{0}, false},
		{"precision: only the wide one repeats", prec, []itemState{state(6, 6, tight...), state(6, 6, loose...), state(6, 6, six...)}, time.Second, []int{1}, false},
		{"precision: no interval is not precise", prec, []itemState{state(3, 3, three...)}, 0, []int{0}, false},
		{"precision: a failed repetition counts towards the minimum", prec, []itemState{state(6, 7, wide7...)}, 0, []int{0}, false},
		{"precision: narrowed after many", prec, []itemState{state(6, len(many), many...)}, 0, nil, false},
		{"precision: time is up", prec, []itemState{state(6, 6, loose...), state(6, 2, 1, 2)}, time.Minute, nil, true},
		{"precision: the most repetitions", prec, []itemState{state(6, 100, loose...)}, 0, nil, false},
		{"dropped", prec, []itemState{{Min: 6, Dropped: true}}, 0, nil, false},
		{"warming", prec, []itemState{{Min: 6, Attempted: 6, Warming: true}}, 0, []int{0}, false},
		// A cheap item beside a slow one gets the repetitions that fit in
		// one of the slow one's (60 s / 0.5 s), up to its projection.
		{"precision: a cheap item beside a slow one", Rule{TargetPct: 2, MaxTime: time.Minute, MaxReps: 1000}, []itemState{timed(state(6, 6, loose...), 500*time.Millisecond), timed(state(6, 6, loose...), time.Minute)}, 0,
			append(slices.Repeat([]int{0}, 120), 1), false},
		{"precision: what fits in the slowest", prec, []itemState{timed(state(6, 6, loose...), 500*time.Millisecond), timed(state(6, 6, loose...), 2*time.Second)}, 0,
			[]int{0, 0, 0, 0, 1}, false},
		// ±2.5% after 6 projects 9 for ±2% (stats.Projected): 3 more,
		// though 120 would fit.
		{"precision: no more than the projection", prec, []itemState{timed(state(6, 6, near...), 500*time.Millisecond), timed(state(6, 6, loose...), time.Minute)}, 0,
			[]int{0, 0, 0, 1}, false},
		{"precision: the slowest met its target", prec, []itemState{timed(state(6, 6, loose...), 500*time.Millisecond), timed(state(6, 6, tight...), time.Minute)}, 0,
			[]int{0}, false},
		// Below its minimum or warming up, a cheap item gets the rest of
		// its minimum, or what the detection looks at, in one round.
		{"precision: the rest of the minimum at once", prec, []itemState{timed(state(6, 3, three...), 500*time.Millisecond), timed(state(6, 6, loose...), time.Minute)}, 0,
			[]int{0, 0, 0, 1}, false},
		{"precision: warming, what the detection looks at", prec, []itemState{timed(itemState{Min: 6, Warming: true}, 500*time.Millisecond), timed(state(6, 6, loose...), time.Minute)}, 0,
			[]int{0, 0, 0, 0, 0, 1}, false},
		{"precision: the minimum of a slow one, one a round", prec, []itemState{timed(state(6, 3, three...), time.Minute), timed(state(6, 3, three...), 500*time.Millisecond)}, 0,
			[]int{0, 1, 1, 1}, false},
		{"precision: unknown costs, one a round", prec, []itemState{state(6, 0), state(6, 0)}, 0,
			[]int{0, 1}, false},
		{"precision: up to the most repetitions", prec, []itemState{timed(state(6, 98, loose...), 500*time.Millisecond), timed(state(6, 6, loose...), time.Minute)}, 0,
			[]int{0, 0, 1}, false},
		{"count: one a round whatever the cost", count, []itemState{timed(state(6, 2, 1, 2), 500*time.Millisecond), timed(state(6, 2, 1, 2), time.Minute)}, 0,
			[]int{0, 1}, false},
	} {
		got, up := c.rule.Next(c.items, c.elapsed)
		if !slices.Equal(got, c.want) || up != c.timeUp {
			t.Errorf("%s: Next = %v, %v; want %v, %v", c.name, got, up, c.want, c.timeUp)
		}
	}
}

func TestRuleStopping(t *testing.T) {
	prec := Rule{TargetPct: 2, MaxTime: time.Minute, MaxReps: 100}
	for _, c := range []struct {
		name        string
		rule        Rule
		it          itemState
		interrupted bool
		rule2       string
		reason      string
		achieved    bool
	}{
		{"count", Rule{}, state(6, 6, loose...), false, run.RuleCount, run.ReasonCount, true},
		{"count interrupted", Rule{}, state(6, 3, three...), true, run.RuleCount, run.ReasonInterrupted, false},
		{"count dropped", Rule{}, itemState{Min: 6, Attempted: 2, Dropped: true}, false, run.RuleCount, run.ReasonFailed, false},
		{"reached", prec, state(6, 6, tight...), false, run.RulePrecision, run.ReasonReached, true},
		{"reached, then interrupted", prec, state(6, 6, tight...), true, run.RulePrecision, run.ReasonReached, true},
		{"out of time", prec, state(6, 6, loose...), false, run.RulePrecision, run.ReasonMaxTime, true},
		{"out of time before an interval", prec, state(6, 3, three...), false, run.RulePrecision, run.ReasonMaxTime, false},
		{"interrupted", prec, state(6, 6, loose...), true, run.RulePrecision, run.ReasonInterrupted, true},
		{"most repetitions", prec, state(6, 100, loose...), false, run.RulePrecision, run.ReasonMaxRuns, true},
		{"dropped", prec, itemState{Min: 6, Attempted: 2, Dropped: true}, false, run.RulePrecision, run.ReasonFailed, false},
	} {
		s := c.rule.Stopping(c.it, c.interrupted)
		if s.Rule != c.rule2 || s.Reason != c.reason || (s.AchievedPct != nil) != c.achieved {
			t.Errorf("%s: Stopping = %+v; want rule %s, reason %s, achieved %v", c.name, s, c.rule2, c.reason, c.achieved)
		}
		if (s.TargetPct != nil) != (c.rule2 == run.RulePrecision) {
			t.Errorf("%s: target %v under the %s rule", c.name, s.TargetPct, s.Rule)
		}
	}
}

// TestRunPrecision: under the precision rule a tight workload stops at
// its minimum, a noisy one is repeated until its interval narrows, each
// gets its stopping block, and the progress never counts past its total.
func TestRunPrecision(t *testing.T) {
	var calls []string
	noisy := append([]float64{100, 130, 80, 120, 90, 140}, slices.Repeat([]float64{100}, 60)...)
	a := &scripted{id: "tight", values: slices.Repeat([]float64{5}, 100), calls: &calls}
	b := &scripted{id: "noisy", values: noisy, calls: &calls}
	items := []plan.Item{{Workload: a, Repetitions: 6}, {Workload: b, Repetitions: 6}}
	r := &run.Run{Results: NewResults(items)}
	var events []Event
	err := measureItems(context.Background(), r, items, options{Precision: 2, MaxTime: time.Hour, Seed: 3,
		progress: func(e Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	na, nb := len(r.Results[0].Metrics[0].Samples), len(r.Results[1].Metrics[0].Samples)
	if na != 6 || nb <= 6 || nb >= len(noisy) {
		t.Errorf("repetitions: tight %d (want 6), noisy %d (want more than 6, fewer than %d)", na, nb, len(noisy))
	}
	for i, res := range r.Results {
		s := res.Stopping
		if s == nil || s.Rule != run.RulePrecision || s.Reason != run.ReasonReached || *s.AchievedPct > 2 {
			t.Errorf("result %d: stopping %+v", i, s)
		}
		if w := res.WarmupDone; w == nil || w.Rule != run.WarmupCount || w.Discarded != 0 {
			t.Errorf("result %d: warm-up %+v", i, w)
		}
	}
	for _, e := range events {
		if e.Done > e.Total || (e.Done == e.Total && !e.Finished) || (!e.Open && e.Total != na+nb) {
			t.Fatalf("event %+v: counts past its total", e)
		}
	}
}

// TestRunPrecisionCheapBesideSlow: under --max-time a cheap workload
// reaches its target beside a slow one that never does, because a round
// gives it the repetitions that fit in one of the slow one's; it stops
// within the round once it meets the target. One repetition a round
// would have given it 9 in the 10 minutes, too few (its first 6 are
// wide).
func TestRunPrecisionCheapBesideSlow(t *testing.T) {
	var calls []string
	clock := &fakeClock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	cheapValues := append([]float64{100, 130, 80, 120, 90, 140}, slices.Repeat([]float64{100}, 200)...)
	cheap := &scripted{id: "cheap", values: cheapValues, calls: &calls, clock: clock, cost: 500 * time.Millisecond}
	slow := &scripted{id: "slow", values: slices.Repeat(loose, 20), calls: &calls, clock: clock, cost: time.Minute}
	items := []plan.Item{{Workload: cheap, Repetitions: 6}, {Workload: slow, Repetitions: 6}}
	r := &run.Run{Results: NewResults(items)}
	if err := measureItems(context.Background(), r, items, options{Precision: 2, MaxTime: 10 * time.Minute, Seed: 1, Clock: clock.Now}); err != nil {
		t.Fatal(err)
	}
	c, s := r.Results[0], r.Results[1]
	if c.Stopping.Reason != run.ReasonReached || *c.Stopping.AchievedPct > 2 {
		t.Errorf("cheap: stopping %+v, want reached", c.Stopping)
	}
	if s.Stopping.Reason != run.ReasonMaxTime {
		t.Errorf("slow: stopping %+v, want max-time", s.Stopping)
	}
	n := len(c.Metrics[0].Samples)
	// The fewest that meet ±2%: the interval of the median must lie
	// among the 100s, which takes some 10 more than the 6 wide ones.
	if n <= 9 || n > 30 {
		t.Errorf("cheap: %d repetitions, want more than one a round (9) and no more than it needed", n)
	}
	if pct, ok := stats.HalfWidthPct(c.Metrics[0].Samples[:n-1]); ok && pct <= 2 {
		t.Errorf("cheap: ran on after meeting the target (±%v%% after %d)", pct, n-1)
	}
	if got := clock.t.Sub(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)); got > 10*time.Minute {
		t.Errorf("ran %v, past --max-time", got)
	}
	// Its first round tells its cost; the second gives it the rest of its
	// minimum, the third what its interval asks for: it is done before
	// the slow one's fourth repetition, not one a round until the slow
	// one ran out of time.
	slowBefore, slowSoFar := 0, 0
	for _, c := range calls {
		switch c {
		case "slow":
			slowSoFar++
		case "cheap":
			slowBefore = slowSoFar
		}
	}
	if slowBefore > 3 {
		t.Errorf("cheap's last repetition came after %d of the slow one's: %v", slowBefore, calls)
	}
}

// TestRunPrecisionMaxTime: when the time is up the run stops cleanly,
// keeping what was measured, and says so per result; a workload with no
// measured repetition at all makes it failed (TestRunMaxTimeNoSample).
func TestRunPrecisionMaxTime(t *testing.T) {
	var calls []string
	a := &scripted{id: "a", values: slices.Repeat([]float64{1, 3}, 50), calls: &calls}
	items := []plan.Item{{Workload: a, Repetitions: 6}}
	r := &run.Run{Results: NewResults(items)}
	if err := measureItems(context.Background(), r, items, options{Precision: 1, MaxTime: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	want := run.StatusComplete
	if len(r.Results[0].Metrics[0].Samples) == 0 {
		want = run.StatusFailed
	}
	if r.Status != want || r.Results[0].Stopping.Reason != run.ReasonMaxTime {
		t.Errorf("status %s (want %s), stopping %+v", r.Status, want, r.Results[0].Stopping)
	}
}

// TestRunDetectsWarmup: a decaying start is discarded, the rest measured
// (the repetitions held while deciding included), and the count recorded.
func TestRunDetectsWarmup(t *testing.T) {
	var calls []string
	decay := []float64{200, 150, 120, 105, 101, 100, 100.5, 99.8, 100.2, 100.1, 100, 100, 100, 100, 100}
	flat := slices.Repeat([]float64{7}, 20)
	items := []plan.Item{
		{Workload: &scripted{id: "decay", values: decay, calls: &calls}, Repetitions: 6},
		{Workload: &scripted{id: "flat", values: flat, calls: &calls}, Repetitions: 6},
	}
	r := &run.Run{Results: NewResults(items)}
	rec := &recorder{}
	if err := measureItems(context.Background(), r, items, options{DetectWarmup: true, Warmup: 5, Sink: rec}); err != nil {
		t.Fatal(err)
	}
	got := r.Results[0].Metrics[0].Samples
	if len(got) != 6 || got[0] != 101 {
		t.Errorf("decay samples = %v; want 6 from 101 on", got)
	}
	if w := r.Results[0].WarmupDone; w == nil || w.Rule != run.WarmupDetect || w.Discarded != 4 {
		t.Errorf("decay warm-up = %+v; want detect, 4 discarded", w)
	}
	if w := r.Results[1].WarmupDone; w.Discarded != 0 || len(r.Results[1].Metrics[0].Samples) != 6 {
		t.Errorf("flat: warm-up %+v, samples %v", w, r.Results[1].Metrics[0].Samples)
	}
	if len(rec.samples) != 12 {
		t.Errorf("the sink got %d samples, want the 12 measured", len(rec.samples))
	}
	if s := r.Results[0].Stopping; s.Rule != run.RuleCount || s.Reason != run.ReasonCount {
		t.Errorf("stopping %+v", s)
	}
}

// TestMeasureTakesTheRuleFromThePlan: a Session, the one way every
// command measures (run, a lab guest, a campaign step), runs the
// precision rule and the detected warm-up its plan's request asks for,
// records the minimum as the run's repetitions, and shows each repetition
// on the printer's status line while it runs (once, never when it ends),
// cleared at the end.
func TestMeasureTakesTheRuleFromThePlan(t *testing.T) {
	var calls []string
	items := []plan.Item{{Workload: &scripted{id: "a", values: slices.Repeat([]float64{4}, 20), calls: &calls}, Repetitions: 6}}
	pl := &plan.Plan{Suite: "quick", Items: items,
		Request: plan.Request{Suite: "quick", Warmup: 3, Precision: 2, MaxTime: time.Hour, DetectWarmup: true, Seed: 5}}
	said := &ui.Recorder{}
	r, err := Session{Plan: pl, Meta: Meta{ID: "x"}}.Measure(context.Background(), WordsOnly{said})
	if err != nil {
		t.Fatal(err)
	}
	st := said.Statuses()
	if len(st) != len(calls)+1 || st[len(st)-1] != "" {
		t.Fatalf("status lines %q, want one a repetition and a clearing one", st)
	}
	for i, line := range st[:len(calls)] {
		if want := fmt.Sprintf(", %d done, until ±2%% or 1:00:00] a ", i+1); !strings.Contains(line, want) {
			t.Errorf("status line %d: %q lacks %q", i, line, want)
		}
	}
	res := r.Results[0]
	if r.Repetitions != 6 || r.Warmup != 0 || len(calls) != 6 || res.Stopping.Rule != run.RulePrecision ||
		res.Stopping.Reason != run.ReasonReached || res.WarmupDone.Rule != run.WarmupDetect {
		t.Errorf("runs %d warmup %d calls %d stopping %+v warm-up %+v", r.Repetitions, r.Warmup, len(calls), res.Stopping, res.WarmupDone)
	}
}

// TestStoppedCoverage: the interval at which the precision rule stops
// still covers the true median about as often as a 95% interval should.
// Stopping at the first narrow enough interval picks a lucky low of a
// fluctuating width (a bounded-width sequential interval: Chow & Robbins
// 1965; for the median Farrell 1966, Geertsema 1970), so the coverage is
// somewhat below 95% at these widths and reaches it only as the width
// shrinks. Seeded lognormal samples (the median is 1); 300 stopped runs a
// setting; docs/statistics.md quotes the figures this prints with -v.
func TestStoppedCoverage(t *testing.T) {
	rule := Rule{TargetPct: 2, MaxTime: time.Hour, MaxReps: 3000}
	for _, c := range []struct {
		sigma, target float64
	}{{0.02, 2}, {0.05, 2}, {0.02, 5}, {0.05, 5}, {0.10, 5}} {
		rule.TargetPct = c.target
		rng := rand.New(rand.NewPCG(1, 2))
		const runs = 300
		covered, reps := 0, 0
		for range runs {
			it := itemState{Min: plan.MinPrecisionRepetitions}
			var xs []float64
			for rule.wants(it) {
				xs = append(xs, math.Exp(c.sigma*rng.NormFloat64()))
				it.Attempted++
				it.record(xs)
			}
			s := stats.Summarize(xs)
			if s.Lo <= 1 && 1 <= s.Hi {
				covered++
			}
			reps += len(xs)
		}
		cov := float64(covered) / runs
		t.Logf("σ %.2f, ±%v%%: covered %.1f%% of %d runs, %.1f repetitions on average", c.sigma, c.target, 100*cov, runs, float64(reps)/runs)
		if cov < 0.90 {
			t.Errorf("σ %.2f, ±%v%%: the stopped interval covered the median in %.1f%% of %d runs, want at least 90%%", c.sigma, c.target, 100*cov, runs)
		}
	}
}

// TestRunMaxTimeNoSample: a workload the precision rule's time ran out on
// before any measured repetition makes the run failed, with a failure
// that names --max-time, never a complete run with no sample (issue 36).
func TestRunMaxTimeNoSample(t *testing.T) {
	var calls []string
	clock := &fakeClock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	cheap := &scripted{id: "cheap", values: slices.Repeat([]float64{100}, 50), calls: &calls, clock: clock, cost: 100 * time.Millisecond}
	slow := &scripted{id: "slow", values: slices.Repeat(loose, 20), calls: &calls, clock: clock, cost: time.Minute}
	items := []plan.Item{{Workload: cheap, Repetitions: 6}, {Workload: slow, Repetitions: 6}}
	r := &run.Run{Results: NewResults(items)}
	// A warm-up of the slow one takes the whole --max-time.
	if err := measureItems(context.Background(), r, items, options{Precision: 2, MaxTime: 30 * time.Second, Warmup: 1, Seed: 1, Clock: clock.Now}); err != nil {
		t.Fatal(err)
	}
	if r.Status != run.StatusFailed {
		t.Errorf("status %s, want failed", r.Status)
	}
	for i, res := range r.Results {
		if len(res.Metrics[0].Samples) > 0 {
			continue
		}
		if !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.Contains(f, "no measured repetition fit in --max-time 30s") }) {
			t.Errorf("result %d (%s) has no sample and no failure saying why: %q", i, res.Workload, res.Failures)
		}
	}
}
