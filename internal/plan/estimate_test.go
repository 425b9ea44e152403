package plan

import (
	"context"
	"strings"
	"testing"
	"time"

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
	past := quick.Estimate(1, []time.Duration{40 * time.Second, 4 * time.Minute, 44 * time.Second})
	if past.Duration != 44*time.Second || past.Past != 3 || past.String() != "estimated 44 s (from 3 past runs of this suite on this machine)" {
		t.Errorf("from past runs: %v %q", past, past.String())
	}
	if one := quick.Estimate(1, []time.Duration{time.Minute}); one.String() != "estimated 60 s (from 1 past run of this suite on this machine)" {
		t.Errorf("one past run: %q", one.String())
	}
	if got := past.Times(4, 16*time.Second).Duration; got != 4*time.Minute {
		t.Errorf("Times: %v", got)
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
	past := pl.Estimate(0, []time.Duration{time.Hour})
	if past.Duration != past.Max || past.Past != 1 {
		t.Errorf("a past run longer than --max-time: %+v", past)
	}
	if lab := e.Times(2, 10*time.Second); lab.Max != 2*(e.Max+10*time.Second) || lab.Precision != 3 {
		t.Errorf("Times: %+v", lab)
	}
	slow := Estimate{Duration: 10 * time.Minute, Max: 2 * time.Minute, Precision: 3} // a TCG guest's figure
	if got := slow.String(); !strings.HasPrefix(got, "estimated 2 min to 2 min (2 min from the plan") {
		t.Errorf("a figure above --max-time: %q", got)
	}
}
