package plan

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/workload"
)

// TestEstimate: the plan's figure grows with the repetitions and the
// sizes, the quick suite's is within a factor of two of the 42 s measured
// on the development machine, and stored runs replace it by their median.
func TestEstimate(t *testing.T) {
	reg := workload.Default()
	quick, err := Make(context.Background(), reg, Request{Suite: "quick", Warmup: 1, Timeout: time.Minute, Engines: []string{"native"}})
	if err != nil {
		t.Fatal(err)
	}
	e := quick.Estimate(1, nil)
	if e.Past != 0 || e.Duration < 21*time.Second || e.Duration > 84*time.Second {
		t.Errorf("quick suite: %v, want about 42 s from the plan", e)
	}
	if got := e.String(); got != "estimated "+Approx(e.Duration)+" (from the plan)" {
		t.Errorf("line %q", got)
	}
	std, err := Make(context.Background(), reg, Request{Suite: "standard", Warmup: 1, Timeout: time.Minute, Engines: []string{"native"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := std.Estimate(1, nil); s.Duration <= 2*e.Duration {
		t.Errorf("standard suite %v not well above quick %v", s, e)
	}
	if more := quick.Estimate(5, nil); more.Duration <= e.Duration {
		t.Errorf("5 warm-ups %v, 1 warm-up %v", more, e)
	}
	// Stored runs of the same plan: the figure is their median duration.
	past := quick.Estimate(1, []*run.Run{pastRun(quick, 40*time.Second, 1, nil), pastRun(quick, 4*time.Minute, 1, nil), pastRun(quick, 44*time.Second, 1, nil)})
	if far(past.Duration, 44*time.Second) || past.Past != 3 || past.String() != "estimated 44 s (from 3 past runs of the same workloads on this machine)" {
		t.Errorf("from past runs: %v %q", past, past.String())
	}
	if one := quick.Estimate(1, []*run.Run{pastRun(quick, time.Minute, 1, nil)}); one.String() != "estimated 60 s (from 1 past run of the same workloads on this machine)" {
		t.Errorf("one past run: %q", one.String())
	}
	if got := past.Times(4, 16*time.Second).Duration; far(got, 4*time.Minute) {
		t.Errorf("Times: %v", got)
	}
	// A stored run of one workload that ran twice as slow as the plan's
	// figure for it: the whole plan is expected to, too.
	ctl, err := Make(context.Background(), reg, Request{Suite: "quick", Only: []string{"ctl-user"}, Warmup: 1, Timeout: time.Minute, Engines: []string{"native"}})
	if err != nil {
		t.Fatal(err)
	}
	slow := pastRun(ctl, 2*ctl.Estimate(1, nil).Duration, 1, nil)
	if got := quick.Estimate(1, []*run.Run{slow}); far(got.Duration, 2*e.Duration) || got.Past != 1 {
		t.Errorf("a slower machine: %v, want twice %v", got, e.Duration)
	}
	// A stored run whose duration is absurd for what it ran (a hostile or
	// broken row) is not learnt from.
	if got := quick.Estimate(1, []*run.Run{pastRun(quick, 5000*time.Hour, 1, nil)}); got.Past != 0 || got.Duration != e.Duration {
		t.Errorf("an absurd past run: %+v", got)
	}
	for d, want := range map[time.Duration]string{
		0: "1 s", 42 * time.Second: "42 s", 89 * time.Second: "89 s", 4*time.Minute + 10*time.Second: "4 min",
		125 * time.Minute: "2 h 05 min",
	} {
		if got := Approx(d); got != want {
			t.Errorf("Approx(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestEstimatePrecision: under the precision rule the estimate is a span
// from the minimum's figure to --max-time, and says that the rule
// decides; it is never above the span's end.
func TestEstimatePrecision(t *testing.T) {
	pl, err := Make(context.Background(), workload.Default(), Request{Suite: "quick", Only: []string{"syscall-basic", "ctl-user"},
		Warmup: 1, Timeout: time.Minute, Engines: []string{"native"}, Precision: 3, MaxTime: 90 * time.Second, Given: []string{"precision"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range pl.Items {
		if it.Repetitions != MinPrecisionRepetitions {
			t.Errorf("%s: minimum %d, want %d", it.Workload.Info().ID, it.Repetitions, MinPrecisionRepetitions)
		}
	}
	e := pl.Estimate(0, nil)
	if e.Max != startCost+90*time.Second || e.Duration > e.Max || e.Duration < startCost {
		t.Fatalf("estimate %+v", e)
	}
	want := "estimated " + Approx(e.Duration) + " to " + Approx(e.Max) + " (" + Approx(e.Duration) + " from the plan, at the minimum repetitions; the precision rule repeats each workload until ±3% or --max-time: the total is not known in advance)"
	if got := e.String(); got != want {
		t.Errorf("line %q\nwant %q", got, want)
	}
	past := pl.Estimate(0, []*run.Run{pastRun(pl, 30*e.Duration, 0, nil)})
	if past.Duration != past.Max || past.Past != 1 || past.Projected != 2 {
		t.Errorf("a machine 30 times slower, whose samples already met ±3%%: %+v", past)
	}
	if lab := e.Times(2, 10*time.Second); lab.Max != 2*(e.Max+10*time.Second) || lab.Precision != 3 {
		t.Errorf("Times: %+v", lab)
	}
	slow := Estimate{Duration: 10 * time.Minute, Max: 2 * time.Minute, Precision: 3} // a TCG guest's figure
	if got := slow.String(); !strings.HasPrefix(got, "estimated 2 min to 2 min (2 min from the plan") {
		t.Errorf("a figure above --max-time: %q", got)
	}
}

// TestEstimateProjected: under the precision rule a workload's stored
// samples project its repetitions for the target (±4% after 10 project
// 29 for ±2%: stats.Projected); a workload without stored samples counts at its minimum,
// and the line says which rests on what.
func TestEstimateProjected(t *testing.T) {
	reg := workload.Default()
	pl, err := Make(context.Background(), reg, Request{Suite: "quick", Only: []string{"syscall-basic", "ctl-user"},
		Timeout: time.Minute, Engines: []string{"native"}, Precision: 2, MaxTime: time.Hour, Given: []string{"precision"}})
	if err != nil {
		t.Fatal(err)
	}
	spread := []float64{94, 96, 98, 100, 100, 100, 100, 102, 104, 106}
	if pct, ok := stats.HalfWidthPct(spread); !ok || math.Abs(pct-4) > 1e-9 {
		t.Fatalf("the scripted samples are ±%v%% (%v), want ±4%%", pct, ok)
	}
	var sb, ctl Item
	for _, it := range pl.Items {
		switch it.Workload.Info().ID {
		case "syscall-basic":
			sb = it
		case "ctl-user":
			ctl = it
		}
	}
	cost := func(it Item, reps int) time.Duration {
		return time.Duration(reps) * (repetitionCost(it.Workload.Info().ID, it.Params) + repOverhead)
	}
	// A past run of syscall-basic alone, as fast as the plan says.
	only, err := Make(context.Background(), reg, Request{Suite: "quick", Only: []string{"syscall-basic"}, Timeout: time.Minute, Engines: []string{"native"}})
	if err != nil {
		t.Fatal(err)
	}
	past := pastRun(only, startCost+cost(sb, len(spread)), 0, spread)
	e := pl.Estimate(0, []*run.Run{past})
	want := startCost + cost(sb, 29) + cost(ctl, MinPrecisionRepetitions)
	if far(e.Duration, want) || e.Projected != 1 || e.Items != 2 || e.Past != 1 {
		t.Errorf("estimate %+v, want %v with 1 of 2 projected", e, want)
	}
	line := "estimated " + Approx(e.Duration) + ", at most 60 min (from 1 past run of the same workloads on this machine: the repetitions their samples project for ±2%, for 1 of the 2 workloads; the others at their minimum)"
	if got := e.String(); got != line {
		t.Errorf("line %q\nwant %q", got, line)
	}
	// Of two stored runs the one with more samples projects: six with
	// one outlier (an interval of ±50% from the extremes) beside ten at
	// ±4% do not make it thousands.
	outlier := pastRun(only, startCost+cost(sb, 6), 0, []float64{100, 100, 100, 100, 100, 150})
	if got := pl.Estimate(0, []*run.Run{past, outlier}); far(got.Duration, want) || got.Projected != 1 {
		t.Errorf("an outlier in a smaller run: %+v, want %v", got, want)
	}
	// Samples at other parameters say nothing of these.
	other := pastRun(only, startCost+cost(sb, len(spread)), 0, spread)
	other.Results[0].Params["loops"] = float64(12345)
	if got := pl.Estimate(0, []*run.Run{other}); got.Projected != 0 {
		t.Errorf("samples at other parameters projected: %+v", got)
	}
	// Hostile samples that project a billion repetitions count at the
	// runner's bound: the figure does not overflow, and --max-time caps it.
	wild := pastRun(only, startCost+cost(sb, 6), 0, []float64{0.001, 0.001, 0.001, 0.001, 0.001, 1e300})
	if got := pl.Estimate(0, []*run.Run{wild}); got.Duration != got.Max || got.Projected != 1 {
		t.Errorf("samples that project a billion repetitions: %+v", got)
	}
	// A target the stored samples met projects fewer repetitions than
	// they had: 8 for ±5%.
	loose := *pl
	loose.Request.Precision = 5
	if got := loose.Estimate(0, []*run.Run{past}); far(got.Duration, startCost+cost(sb, 8)+cost(ctl, MinPrecisionRepetitions)) || got.Projected != 1 {
		t.Errorf("a target met by the stored samples: %+v", got)
	}
}

// pastRun is a stored run of pl's plan that took took with warmup
// warm-ups: every workload with its repetitions' samples, or samples when
// given, as its primary metric; JSON's float64 for integer parameters.
func pastRun(pl *Plan, took time.Duration, warmup int, samples []float64) *run.Run {
	start := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	r := &run.Run{Started: start, Finished: start.Add(took), Warmup: warmup, Status: run.StatusComplete}
	for _, it := range pl.Items {
		xs := samples
		if xs == nil {
			xs = make([]float64, it.Repetitions)
			for i := range xs {
				xs[i] = 100
			}
		}
		params := map[string]any{}
		for k, v := range it.Params {
			if n, ok := v.(int64); ok {
				params[k] = float64(n)
			} else {
				params[k] = v
			}
		}
		r.Results = append(r.Results, run.Result{Workload: it.Workload.Info().ID, Params: params,
			Metrics: []run.Metric{{Name: "wall", Samples: xs}}})
	}
	return r
}

// far reports whether got is more than a millisecond from want (the
// figure is scaled in floating point).
func far(got, want time.Duration) bool {
	return (got - want).Abs() > time.Millisecond
}
