package measure

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// measuring is one run in progress: each item's state under the rule,
// the repetitions held while a warm-up is detected, and what progress
// needs to know.
type measuring struct {
	r       *run.Run
	items   []plan.Item
	opt     options
	rule    Rule
	start   time.Time
	state   []itemState
	pending [][]map[string]float64 // repetitions held while Warming
	warmed  []int                  // warm-up repetitions run (count rule) or discarded (detected)
	spent   []time.Duration
	count   []int
	streak  []int
	done    int
	round   int      // the shuffled round running (0: the fixed warm-ups)
	started [][2]int // repetitions started per item: warm-up, measured
	warmups int      // fixed warm-ups per item
	stop    bool
	sinkErr error
}

func newMeasuring(r *run.Run, items []plan.Item, opt options, rule Rule, warmups int) *measuring {
	m := &measuring{r: r, items: items, opt: opt, rule: rule, start: opt.Clock(), warmups: warmups,
		state: make([]itemState, len(items)), pending: make([][]map[string]float64, len(items)),
		warmed: make([]int, len(items)), spent: make([]time.Duration, len(items)),
		count: make([]int, len(items)), streak: make([]int, len(items)), started: make([][2]int, len(items))}
	for i, it := range items {
		m.state[i] = itemState{Min: it.Repetitions, Warming: opt.DetectWarmup}
	}
	return m
}

// repeat runs one repetition of item i and records it; it returns true
// when the run must stop (interrupted, or the store failed).
func (m *measuring) repeat(ctx context.Context, phase Phase, i int) bool {
	if ctx.Err() != nil {
		return true
	}
	it, res := m.items[i], &m.r.Results[i]
	k := 0
	if phase == PhaseMeasure {
		k = 1
	}
	rep := m.started[i][k]
	m.started[i][k]++
	ev := Event{Phase: phase, Item: i, Workload: res.Workload, Rep: rep, Round: m.round}
	m.emit(ev)

	repCtx, cancel := context.WithCancel(ctx)
	if m.opt.Env.Timeout > 0 {
		repCtx, cancel = context.WithTimeout(ctx, m.opt.Env.Timeout+m.opt.Env.Timeout/10)
	}
	t0 := m.opt.Clock()
	sample, err := it.Workload.Run(repCtx, m.opt.Env, it.Params)
	if err == nil && ctx.Err() == nil && errors.Is(repCtx.Err(), context.DeadlineExceeded) {
		// A workload that returned a sample after its timeout (one that
		// does not watch its context) failed all the same: --timeout
		// holds whatever the workload does.
		err = repCtx.Err()
	}
	cancel()
	m.spent[i] += m.opt.Clock().Sub(t0)
	m.count[i]++
	m.state[i].Typical = m.typical(i)
	if err == nil {
		err = checkSample(it.Workload.Info(), sample)
	}
	if err != nil && ctx.Err() != nil {
		return true // interrupted: the unfinished repetition is not a failure
	}
	m.done++
	st := &m.state[i]
	detecting := phase == PhaseWarmup && st.Warming
	switch {
	case phase == PhaseMeasure:
		st.Attempted++
	case !detecting:
		m.warmed[i]++
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("repetition exceeded the timeout of %v", m.opt.Env.Timeout)
		}
		res.Failures = append(res.Failures, fmt.Sprintf("%s %d: %v", phase, rep+1, err))
		m.streak[i]++
		if m.streak[i] >= m.opt.MaxFailures {
			st.Dropped = true
			res.Failures = append(res.Failures, fmt.Sprintf("dropped after %d consecutive failures", m.streak[i]))
		}
	} else {
		m.streak[i] = 0
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
		switch {
		case phase == PhaseMeasure:
			m.measure(i, sample.Values)
		case detecting:
			m.pending[i] = append(m.pending[i], sample.Values)
			m.detect(i, false)
		}
	}
	ev.Finished, ev.Err = true, err
	m.emit(ev)
	return m.sinkErr != nil
}

// measure records one measured repetition of item i.
func (m *measuring) measure(i int, values map[string]float64) {
	res := &m.r.Results[i]
	for k := range res.Metrics {
		if v, ok := values[res.Metrics[k].Name]; ok {
			res.Metrics[k].Samples = append(res.Metrics[k].Samples, v)
		}
	}
	m.state[i].record(res.Primary())
	if m.opt.Sink != nil && m.sinkErr == nil {
		m.sinkErr = m.opt.Sink.Sample(m.r, i, values)
	}
}

// detect decides item i's warm-up when its held repetitions allow it
// (or, with force, from what there is: the run is ending): the
// repetitions stats.DetectWarmup calls warm-up are discarded, the rest
// become the first measured ones.
func (m *measuring) detect(i int, force bool) {
	st := &m.state[i]
	if !st.Warming {
		return
	}
	name := primaryName(&m.r.Results[i], m.pending[i])
	var xs []float64
	for _, v := range m.pending[i] {
		xs = append(xs, v[name])
	}
	d, decided := stats.DetectWarmup(xs, plan.MaxDetectedWarmup)
	if !decided && !force {
		return
	}
	st.Warming = false
	m.warmed[i] = d
	for _, v := range m.pending[i][d:] {
		st.Attempted++
		m.measure(i, v)
	}
	m.pending[i] = nil
}

// settle ends every item: a warm-up still being detected is decided from
// what was measured (nothing finished is lost), and every result gets its
// stopping and warm-up blocks.
func (m *measuring) settle(interrupted bool) {
	for i := range m.items {
		m.detect(i, true)
		res := &m.r.Results[i]
		s := m.rule.Stopping(m.state[i], interrupted)
		res.Stopping = &s
		rule := run.WarmupCount
		if m.opt.DetectWarmup {
			rule = run.WarmupDetect
		}
		res.WarmupDone = &run.WarmupRecord{Rule: rule, Discarded: m.warmed[i]}
	}
}

// primaryName is the metric the warm-up of a result is detected on: the
// first declared one its held repetitions all measured.
func primaryName(res *run.Result, held []map[string]float64) string {
	for _, mt := range res.Metrics {
		all := true
		for _, v := range held {
			_, ok := v[mt.Name]
			all = all && ok
		}
		if all {
			return mt.Name
		}
	}
	return ""
}

// elapsed is the time since the run's measuring started.
func (m *measuring) elapsed() time.Duration { return m.opt.Clock().Sub(m.start) }

// typical is the mean duration of item i's repetitions so far (0 before
// the first).
func (m *measuring) typical(i int) time.Duration {
	if m.count[i] == 0 {
		return 0
	}
	return m.spent[i] / time.Duration(m.count[i])
}

// emit tells progress of e with the counts, the clock and the ETA.
func (m *measuring) emit(e Event) {
	if m.opt.progress == nil {
		return
	}
	e.Done, e.Elapsed = m.done, m.elapsed()
	e.Precision = m.rule.TargetPct
	if e.Precision > 0 {
		e.MaxTime = m.rule.MaxTime
	}
	var left time.Duration
	known := true
	for i, st := range m.state {
		n, open := m.rule.remaining(st)
		if !st.Dropped {
			n += max(m.warmups-m.warmed[i], 0)
		}
		e.Total += n
		e.Open = e.Open || open
		if m.count[i] == 0 {
			known = known && n == 0
			continue
		}
		left += time.Duration(n+m.rule.expectedMore(st)) * m.typical(i)
	}
	e.Total += m.done
	if !e.Finished {
		e.Total = max(e.Total, e.Done+1) // the repetition about to run
	}
	if known {
		e.ETA = left
		if e.Precision > 0 {
			e.ETA = min(e.ETA, max(m.rule.MaxTime-e.Elapsed, 0))
		}
	}
	m.opt.progress(e)
}
