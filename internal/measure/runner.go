package measure

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/workload"
)

// options control a run.
type options struct {
	// Warmup repetitions per item, run first and discarded (the count
	// rule of the warm-up; DetectWarmup replaces it).
	Warmup int
	// DetectWarmup discards each item's leading repetitions until its
	// series shows no trend (stats.DetectWarmup, at most
	// plan.MaxDetectedWarmup), instead of Warmup.
	DetectWarmup bool
	// Precision, when above 0, is the precision rule's target (percent;
	// see Rule), MaxTime its time (plan.DefaultMaxTime when 0).
	Precision float64
	MaxTime   time.Duration
	// Seed drives the shuffled order of every round; it is recorded in the
	// run so that the order can be reproduced.
	Seed int64
	// Env is handed to every repetition; Env.Timeout bounds each one.
	Env workload.Env
	// Sink, when set, receives the run as it goes (the store).
	Sink Sink
	// progress, when set, is told before and after every repetition.
	progress func(Event)
	// Now is the clock that stamps the run's finish time (time.Now when
	// nil); tests fix it.
	Now func() time.Time
	// Clock times the repetitions and the run's elapsed time for the
	// precision rule and progress (time.Now when nil); tests script it.
	Clock func() time.Time
	// MaxFailures is how many consecutive failed repetitions drop an item
	// from the rest of the run (default 2).
	MaxFailures int
	// Load, when set, reads the machine's load when the run starts and
	// when it ends (r.Load); nil readings are not recorded.
	Load func() *sysinfo.Load
}

// Phase says whether a repetition counts.
type Phase string

// The phases of a run.
const (
	PhaseWarmup  Phase = "warmup"
	PhaseMeasure Phase = "measure"
)

// Event reports progress.
type Event struct {
	Phase    Phase
	Item     int
	Workload string
	// Rep is the repetition number within the item and phase (0-based):
	// each repetition of an item has its own, also when a round runs it
	// more than once.
	Rep int
	// Round is the shuffled round (from 1; 0 during the fixed warm-ups).
	Round int
	// Done counts the repetitions run so far (both phases) and Total
	// those known to be run in all; Open says the rule may add more
	// (--precision, or a warm-up being detected): Total is then a floor,
	// which moves as the rule learns, so progress does not show it.
	Done, Total int
	Open        bool
	// Precision and MaxTime are the precision rule's (0 under the
	// count rule).
	Precision float64
	MaxTime   time.Duration
	// Finished is false before a repetition and true after it.
	Finished bool
	Err      error
	// Elapsed is the wall time since the run started; ETA estimates what is
	// left from the mean duration of each item's repetitions so far (zero
	// while nothing is known; under the precision rule, from the
	// repetitions each interval still seems to need, at most the time
	// left: a guess, which Line says).
	Elapsed, ETA time.Duration
}

// Progress is how far the run is, as a progress line says it: "12/40"
// under a fixed count; while the rule may add repetitions, what is known
// and what decides the rest, never a total that moves: "round 3, 24
// done, until ±2% or 10:00" (24 repetitions).
func (e Event) Progress() string {
	n := e.Done
	if !e.Finished {
		n++
	}
	if !e.Open {
		return fmt.Sprintf("%d/%d", n, e.Total)
	}
	rule := "the warm-up detection decides the rest"
	if e.Precision > 0 {
		rule = fmt.Sprintf("until ±%v%% or %s", e.Precision, Clock(e.MaxTime))
	}
	if e.Round == 0 {
		return fmt.Sprintf("warm-up, %d done, %s", n, rule)
	}
	return fmt.Sprintf("round %d, %d done, %s", e.Round, n, rule)
}

// Line is the status line of e: "[12/40] sched-pipe measure 3 · 0:04
// elapsed · ETA 0:12". Under an open rule the ETA is said to be a guess,
// and under --precision bounded by the time left.
func (e Event) Line() string {
	eta := "ETA --:--"
	switch {
	case e.ETA > 0 && e.Open && e.Precision > 0:
		eta = fmt.Sprintf("ETA ~%s (a guess)", Clock(e.ETA)) // at most the rule's --max-time, which Progress says
	case e.ETA > 0 && e.Open:
		eta = fmt.Sprintf("ETA ~%s (a guess)", Clock(e.ETA))
	case e.ETA > 0:
		eta = "ETA " + Clock(e.ETA)
	case e.Precision > 0:
		eta = fmt.Sprintf("at most %s left", Clock(max(e.MaxTime-e.Elapsed, 0)))
	}
	return fmt.Sprintf("[%s] %s %s %d · %s elapsed · %s", e.Progress(), e.Workload, e.Phase, e.Rep+1, Clock(e.Elapsed), eta)
}

// NewResults returns the results of a run with every item's metrics
// declared and no samples.
func NewResults(items []plan.Item) []run.Result {
	out := make([]run.Result, len(items))
	for i, it := range items {
		info := it.Workload.Info()
		res := run.Result{Workload: info.ID, Engine: it.Engine, Params: it.Params.Map()}
		for _, m := range info.Metrics {
			res.Metrics = append(res.Metrics, run.Metric{Name: m.Name, Unit: m.Unit, Better: m.Better, Samples: []float64{}})
		}
		out[i] = res
	}
	return out
}

// measureItems measures items into r, which must hold NewResults(items): first
// the fixed warm-ups (items in order), then rounds; each round runs, in
// an order shuffled by the seed, every item the stopping rule (Rule)
// still wants, as many times as it gives it (Rule.Next), so that drift
// (frequency, host load) hits every workload alike. It returns when the
// rule wants nothing more, or when ctx is cancelled (r.Status is then
// interrupted and every finished sample is kept). Failed repetitions are recorded in the result's Failures and do
// not stop the run. Every result gets its stopping and warm-up blocks.
func measureItems(ctx context.Context, r *run.Run, items []plan.Item, opt options) error {
	if len(r.Results) != len(items) {
		return errors.New("runner: results do not match items")
	}
	if opt.MaxFailures <= 0 {
		opt.MaxFailures = 2
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Clock == nil {
		opt.Clock = time.Now
	}
	rule := Rule{TargetPct: opt.Precision, MaxTime: opt.MaxTime, MaxReps: plan.MaxRepetitions}
	if rule.TargetPct > 0 && rule.MaxTime <= 0 {
		rule.MaxTime = plan.DefaultMaxTime
	}
	warmups := opt.Warmup
	if opt.DetectWarmup {
		warmups = 0
	}
	r.Status = run.StatusRunning
	if opt.Load != nil {
		if l := opt.Load(); l != nil {
			r.Load = &run.Load{Start: l}
		}
	}
	if opt.Sink != nil {
		if err := opt.Sink.Begin(r); err != nil {
			return err
		}
	}
	m := newMeasuring(r, items, opt, rule, warmups)
	for w := 0; w < warmups && !m.stop; w++ {
		for i := range items {
			if m.stop = m.repeat(ctx, PhaseWarmup, i); m.stop {
				break
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), 0x5ec7a8))
	for round := 0; !m.stop; round++ {
		order, timeUp := rule.Next(m.state, m.elapsed())
		if timeUp || len(order) == 0 {
			break
		}
		m.round = round + 1
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		ran := false
		for _, i := range order {
			if !rule.wants(m.state[i]) {
				continue // dropped, or met the target earlier in this round
			}
			if rule.TargetPct > 0 && m.elapsed()+m.typical(i) > rule.MaxTime {
				continue // it would end after --max-time: not started
			}
			ran = true
			phase := PhaseMeasure
			if m.state[i].Warming {
				phase = PhaseWarmup
			}
			if m.stop = m.repeat(ctx, phase, i); m.stop {
				break
			}
		}
		m.stop = m.stop || !ran
	}
	m.settle(ctx.Err() != nil)
	if rule.TargetPct > 0 && ctx.Err() == nil {
		// A workload the precision rule's time ran out on before any
		// measured repetition has no sample: the run is not complete.
		for i, st := range m.state {
			if res := &r.Results[i]; !st.Dropped && len(res.Metrics) > 0 && len(res.Metrics[0].Samples) == 0 {
				res.Failures = append(res.Failures, fmt.Sprintf("no measured repetition fit in --max-time %v: give a longer --max-time", rule.MaxTime))
			}
		}
	}

	r.Finished = opt.Now().UTC()
	if opt.Load != nil {
		if l := opt.Load(); l != nil {
			if r.Load == nil {
				r.Load = &run.Load{}
			}
			r.Load.End = l
		}
	}
	switch {
	case ctx.Err() != nil:
		r.Status = run.StatusInterrupted
	case m.sinkErr != nil || anyFailures(r.Results):
		r.Status = run.StatusFailed
	default:
		r.Status = run.StatusComplete
	}
	sinkErr := m.sinkErr
	if opt.Sink != nil {
		if err := opt.Sink.Finish(r); err != nil && sinkErr == nil {
			sinkErr = err
		}
	}
	if sinkErr != nil {
		return fmt.Errorf("recording the run: %w", sinkErr)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// checkSample refuses samples that miss a declared metric or hold a value
// that is not a finite number.
func checkSample(info workload.Info, s workload.Sample) error {
	var names []string
	for _, m := range info.Metrics {
		v, ok := s.Values[m.Name]
		if !ok {
			continue // a metric an engine cannot measure (perf has no work_s)
		}
		if v != v || v > 1e300 || v < -1e300 {
			names = append(names, m.Name)
		}
	}
	if len(s.Values) == 0 {
		return errors.New("the repetition measured nothing")
	}
	if len(names) > 0 {
		sort.Strings(names)
		return fmt.Errorf("the repetition measured no finite value for %v", names)
	}
	return nil
}

func anyFailures(rs []run.Result) bool {
	for _, r := range rs {
		if len(r.Failures) > 0 {
			return true
		}
	}
	return false
}

// Clock is a duration as progress shows it: M:SS, or H:MM:SS from an
// hour on (elapsed times and ETAs of runs, labs and campaigns).
func Clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
