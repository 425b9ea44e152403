package plan

import (
	"fmt"
	"time"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/workload"
)

const (
	// repOverhead is each repetition's own cost beyond the workload's
	// loop: starting and reaping its workers, the sample's bookkeeping.
	repOverhead = 50 * time.Millisecond
	// startCost is a run's own start: the environment snapshot.
	startCost = 3 * time.Second
	// fixedCost is a repetition of a workload the registry does not hold
	// (a stored result of a workload since renamed, a test's scripted
	// one).
	fixedCost = time.Second
)

// builtin is the registry whose workloads say what a repetition costs
// (workload.Estimator): plans and stored results name them by id.
var builtin = workload.Default()

// repetitionCost is the plan's figure for one repetition of workload id
// with p: the workload's own, on the development machine; 0 when it is not
// known before it runs (a command's).
func repetitionCost(id string, p workload.Params) time.Duration {
	if w, err := builtin.Lookup(id); err == nil {
		if e, ok := w.(workload.Estimator); ok {
			return e.Cost(p)
		}
	}
	return fixedCost
}

// Estimate is how long a run of a plan is expected to take: the plan's
// figure (each workload's repetitions, warm-ups included, times its cost
// at its parameters on the development machine), scaled to this machine
// by its stored runs of the same suite and engine when it has some: by the
// median, over those runs, of how long each took against the plan's
// figure for what it ran. Under the precision rule each workload's
// repetitions are those its most numerous stored samples project for the
// target (stats.Projected), at least its minimum.
type Estimate struct {
	Duration time.Duration
	// Past is the number of stored runs the figure is scaled by (0: the
	// plan's figure as it is).
	Past int
	// Precision is the precision rule's target (0: a fixed count), and
	// Max the most the rule may take (--max-time and the run's start).
	// Projected of the plan's Items workloads have repetitions projected
	// from stored samples; the others are counted at their minimum.
	Precision        float64
	Max              time.Duration
	Projected, Items int
	// Unknown says there is no figure: the plan holds work whose cost is
	// not known before it runs (a command's) and no past run of it.
	Unknown bool
}

// maxScale bounds what is learnt: a stored run whose duration is further
// than this factor from the plan's figure for it says nothing about this
// machine (a hostile or broken row) and is not learnt from.
const maxScale = 1000

// Estimate is the expected duration of p with warmup warm-ups per
// workload; past are this machine's stored runs of the same suite and
// engine (store.DB.PastRuns; none: the plan's figure).
//
// Under the precision rule (Request.Precision) a workload with no stored
// samples at its parameters counts at its minimum (the plan's items hold
// it), and the figure is never more than the rule's --max-time: the line
// says what the figure rests on.
func (p *Plan) Estimate(warmup int, past []*run.Run) Estimate {
	e := Estimate{Items: len(p.Items)}
	scale, n := pastScale(past)
	e.Past = n
	target := p.Request.Precision
	d := startCost
	for _, it := range p.Items {
		e.Unknown = e.Unknown || (n == 0 && repetitionCost(it.Workload.Info().ID, it.Params) == 0)
		reps := it.Repetitions
		if target > 0 {
			if need, ok := projected(it, target, past); ok {
				reps = max(reps, min(need, MaxRepetitions)) // the runner's bound, too
				e.Projected++
			}
		}
		d += time.Duration(reps+warmup) * (repetitionCost(it.Workload.Info().ID, it.Params) + repOverhead)
	}
	e.Duration = time.Duration(float64(d) * scale)
	if e.Unknown {
		e.Duration = 0
	}
	if target > 0 {
		e.Precision, e.Max = target, startCost+p.Request.MaxTimeOf()
		e.Duration = min(e.Duration, e.Max)
	}
	return e
}

// pastScale is how much slower than the plan's figures this machine ran
// its stored runs (the median of each run's duration over the plan's
// figure for its results, repetitions and warm-ups), and how many runs it
// is learnt from; 1 and 0 when none can be.
func pastScale(past []*run.Run) (float64, int) {
	var f []float64
	for _, r := range past {
		d := startCost
		for i := range r.Results {
			res := &r.Results[i]
			warm := r.Warmup
			if res.WarmupDone != nil {
				warm = res.WarmupDone.Discarded
			}
			n := len(res.Primary()) + warm
			d += time.Duration(n) * (repetitionCost(res.Workload, storedParams(res.Params)) + repOverhead)
		}
		x := float64(r.Took()) / float64(d)
		if d > 0 && x > 1.0/maxScale && x < maxScale {
			f = append(f, x)
		}
	}
	if len(f) == 0 {
		return 1, 0
	}
	return stats.Summarize(f).Center, len(f)
}

// projected is the repetitions that its stored samples (its workload at
// its parameters) project for ±target (stats.Projected): from the stored
// result with the most samples, whose interval is the best estimate of
// the spread (the newest among equals); a handful of samples has an
// interval from its extremes, which one outlier widens. ok is false when
// no stored result has an interval.
func projected(it Item, target float64, past []*run.Run) (int, bool) {
	id, key := it.Workload.Info().ID, run.ParamsKey(it.Params.Map())
	n, pct := 0, 0.0
	for _, r := range past {
		for i := range r.Results {
			res := &r.Results[i]
			if res.Workload != id || run.ParamsKey(res.Params) != key {
				continue
			}
			if xs := res.Primary(); len(xs) >= n {
				if w, ok := stats.HalfWidthPct(xs); ok {
					n, pct = len(xs), w
				}
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	return stats.Projected(n, pct, target), true
}

// storedParams are a stored result's parameters as a plan holds them
// (integers as int64: JSON decodes them as float64).
func storedParams(m map[string]any) workload.Params {
	p := make(workload.Params, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			p[k] = s
		} else {
			p[k] = run.ParamInt(v)
		}
	}
	return p
}

// Times is e for n runs, each with overhead more (a boot, a reboot).
func (e Estimate) Times(n int, overhead time.Duration) Estimate {
	out := e
	out.Duration = time.Duration(n) * (e.Duration + overhead)
	if e.Max > 0 {
		out.Max = time.Duration(n) * (e.Max + overhead)
	}
	return out
}

// Basis says where the figure comes from: "from the plan" or "from 3
// past runs of the same workloads on this machine".
func (e Estimate) Basis() string {
	switch e.Past {
	case 0:
		return "from the plan"
	case 1:
		return "from 1 past run of the same workloads on this machine"
	}
	return fmt.Sprintf("from %d past runs of the same workloads on this machine", e.Past)
}

// String is the line said at the start of a run: "estimated 4 min (from
// the plan)". Under the precision rule, with stored samples: "estimated
// 3 min, at most 10 min (from 2 past runs of the same workloads on this machine:
// the repetitions their samples project for ±2%)"; without: "estimated
// 40 s to 10 min (40 s from the plan at the minimum repetitions; the
// precision rule repeats each workload until ±2% or --max-time: the total
// is not known in advance)".
func (e Estimate) String() string {
	if e.Unknown {
		return "no estimate (what a command takes is known only from past runs of it, and none is stored)"
	}
	if e.Precision <= 0 {
		return "estimated " + Approx(e.Duration) + " (" + e.Basis() + ")"
	}
	d := min(e.Duration, e.Max) // --max-time bounds each run (a slower guest's too)
	if e.Projected > 0 {
		which := ""
		if e.Projected < e.Items {
			which = fmt.Sprintf(", for %d of the %d workloads; the others at their minimum", e.Projected, e.Items)
		}
		return fmt.Sprintf("estimated %s, at most %s (%s: the repetitions their samples project for ±%v%%%s)",
			Approx(d), Approx(e.Max), e.Basis(), e.Precision, which)
	}
	return fmt.Sprintf("estimated %s to %s (%s %s, at the minimum repetitions; the precision rule repeats each workload until ±%v%% or --max-time: the total is not known in advance)",
		Approx(d), Approx(e.Max), Approx(d), e.Basis(), e.Precision)
}

// Approx is a duration for people, to two figures at most: "42 s",
// "4 min", "2 h 05 min".
func Approx(d time.Duration) string {
	switch {
	case d < 90*time.Second:
		return fmt.Sprintf("%d s", max(int(d.Round(time.Second)/time.Second), 1))
	case d < 90*time.Minute:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
	}
	m := int(d.Round(time.Minute) / time.Minute)
	return fmt.Sprintf("%d h %02d min", m/60, m%60)
}

// SameWork reports whether r measured what p measures: the same workloads
// at the same parameters, no more and no fewer. The estimate learns from
// such runs only (a command's, a crosscheck's and the probes' plans are not
// their suite's).
func (p *Plan) SameWork(r *run.Run) bool {
	want := map[string]int{}
	for _, it := range p.Items {
		want[it.Workload.Info().ID+" "+run.ParamsKey(it.Params.Map())]++
	}
	for i := range r.Results {
		k := r.Results[i].Workload + " " + run.ParamsKey(r.Results[i].Params)
		if want[k] == 0 {
			return false
		}
		want[k]--
	}
	for _, n := range want {
		if n > 0 {
			return false
		}
	}
	return true
}
