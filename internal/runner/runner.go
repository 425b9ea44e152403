package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

// Options control a run.
type Options struct {
	// Warmup repetitions per item, run first and discarded.
	Warmup int
	// Seed drives the shuffled order of every round; it is recorded in the
	// run so that the order can be reproduced.
	Seed int64
	// Env is handed to every repetition; Env.Timeout bounds each one.
	Env workload.Env
	// Sink, when set, receives the run as it goes (the store).
	Sink Sink
	// OnEvent, when set, is called before and after every repetition.
	OnEvent func(Event)
	// Now is the clock that stamps the run's finish time (time.Now when
	// nil); tests fix it.
	Now func() time.Time
	// MaxFailures is how many consecutive failed repetitions drop an item
	// from the rest of the run (default 2).
	MaxFailures int
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
	// Rep is the repetition number within the item and phase (0-based).
	Rep int
	// Done and Total count repetitions of both phases over the whole run.
	Done, Total int
	// Finished is false before a repetition and true after it.
	Finished bool
	Err      error
	// Elapsed is the wall time since the run started; ETA estimates what is
	// left from the mean duration of each item's repetitions so far (zero
	// while nothing is known).
	Elapsed, ETA time.Duration
}

// step is one scheduled repetition.
type step struct {
	phase Phase
	item  int
	rep   int
}

// Schedule returns the order of repetitions: every warm-up first (items in
// order), then rounds; round k runs every item that has more than k
// repetitions, in an order shuffled by the seed. Interleaving spreads drift
// (frequency, host load) over every workload alike.
func Schedule(items []plan.Item, warmup int, seed int64) []step {
	var s []step
	for w := 0; w < warmup; w++ {
		for i := range items {
			s = append(s, step{PhaseWarmup, i, w})
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5ec7a8))
	maxReps := 0
	for _, it := range items {
		maxReps = max(maxReps, it.Repetitions)
	}
	for round := 0; round < maxReps; round++ {
		var order []int
		for i, it := range items {
			if it.Repetitions > round {
				order = append(order, i)
			}
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, i := range order {
			s = append(s, step{PhaseMeasure, i, round})
		}
	}
	return s
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

// Run measures items into r, which must hold NewResults(items). It returns
// when every repetition has run, or when ctx is cancelled (r.Status is then
// interrupted and every finished sample is kept). Failed repetitions are
// recorded in the result's Failures and do not stop the run.
func Run(ctx context.Context, r *run.Run, items []plan.Item, opt Options) error {
	if len(r.Results) != len(items) {
		return errors.New("runner: results do not match items")
	}
	if opt.MaxFailures <= 0 {
		opt.MaxFailures = 2
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	r.Status = run.StatusRunning
	if opt.Sink != nil {
		if err := opt.Sink.Begin(r); err != nil {
			return err
		}
	}
	sched := Schedule(items, opt.Warmup, opt.Seed)
	start := time.Now()
	spent := make([]time.Duration, len(items))
	count := make([]int, len(items))
	failStreak := make([]int, len(items))
	dropped := make([]bool, len(items))
	var sinkErr error

	eta := func(from int) time.Duration {
		var left time.Duration
		for _, st := range sched[from:] {
			if dropped[st.item] {
				continue
			}
			if count[st.item] == 0 {
				return 0
			}
			left += spent[st.item] / time.Duration(count[st.item])
		}
		return left
	}
	emit := func(e Event) {
		if opt.OnEvent != nil {
			e.Total = len(sched)
			e.Elapsed = time.Since(start)
			opt.OnEvent(e)
		}
	}

	for k, st := range sched {
		if ctx.Err() != nil {
			break
		}
		it := items[st.item]
		res := &r.Results[st.item]
		if dropped[st.item] {
			continue
		}
		ev := Event{Phase: st.phase, Item: st.item, Workload: res.Workload, Rep: st.rep, Done: k}
		ev.ETA = eta(k)
		emit(ev)

		repCtx, cancel := context.WithCancel(ctx)
		if opt.Env.Timeout > 0 {
			repCtx, cancel = context.WithTimeout(ctx, opt.Env.Timeout+opt.Env.Timeout/10)
		}
		t0 := time.Now()
		sample, err := it.Workload.Run(repCtx, opt.Env, it.Params)
		cancel()
		spent[st.item] += time.Since(t0)
		count[st.item]++

		if err == nil {
			err = checkSample(it.Workload.Info(), sample)
		}
		if err != nil && ctx.Err() != nil {
			break // interrupted: the unfinished repetition is not a failure
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("repetition exceeded the timeout of %v", opt.Env.Timeout)
			}
			res.Failures = append(res.Failures, fmt.Sprintf("%s %d: %v", st.phase, st.rep+1, err))
			failStreak[st.item]++
			if failStreak[st.item] >= opt.MaxFailures {
				dropped[st.item] = true
				res.Failures = append(res.Failures, fmt.Sprintf("dropped after %d consecutive failures", failStreak[st.item]))
			}
		} else {
			failStreak[st.item] = 0
			for _, w := range sample.Warnings {
				if !slices.Contains(res.Warnings, w) {
					res.Warnings = append(res.Warnings, w)
				}
			}
			if f := sample.Footprint; f != nil && (res.Footprint == nil || f.RSSKiB > res.Footprint.RSSKiB) {
				res.Footprint = f
			}
			if sc := sample.SpecControls; sc != nil && res.SpecControls == nil {
				res.SpecControls = sc
			}
			if st.phase == PhaseMeasure {
				for i := range res.Metrics {
					m := &res.Metrics[i]
					if v, ok := sample.Values[m.Name]; ok {
						m.Samples = append(m.Samples, v)
					}
				}
				if opt.Sink != nil && sinkErr == nil {
					sinkErr = opt.Sink.Sample(r, st.item, sample.Values)
				}
			}
		}
		ev.Finished, ev.Err, ev.Done = true, err, k+1
		ev.ETA = eta(k + 1)
		emit(ev)
		if sinkErr != nil {
			break
		}
	}

	r.Finished = opt.Now().UTC()
	switch {
	case ctx.Err() != nil:
		r.Status = run.StatusInterrupted
	case sinkErr != nil || anyFailures(r.Results):
		r.Status = run.StatusFailed
	default:
		r.Status = run.StatusComplete
	}
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
