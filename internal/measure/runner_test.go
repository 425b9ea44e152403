package measure

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

// scripted is a workload whose repetitions return scripted values or
// errors, recording the order in which it ran.
type scripted struct {
	id     string
	values []float64
	errs   map[int]error
	calls  *[]string
	n      int
	// clock, when set, is moved on by cost at every repetition (a
	// scripted Options.Clock).
	clock *fakeClock
	cost  time.Duration
}

// fakeClock is a scripted clock: it moves only when a scripted workload
// runs.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time { return c.t }

func (s *scripted) Info() workload.Info {
	return workload.Info{ID: s.id, Metrics: []workload.MetricSpec{{Name: "t", Unit: "s", Better: run.Lower}}}
}

func (s *scripted) Run(ctx context.Context, _ workload.Env, _ workload.Params) (workload.Sample, error) {
	i := s.n
	s.n++
	*s.calls = append(*s.calls, s.id)
	if s.clock != nil {
		s.clock.t = s.clock.t.Add(s.cost)
	}
	if err := s.errs[i]; err != nil {
		return workload.Sample{}, err
	}
	if i >= len(s.values) {
		return workload.Sample{}, errors.New("script exhausted")
	}
	return workload.Sample{Values: map[string]float64{"t": s.values[i]}, Warnings: []string{"same note"}}, nil
}

// recorder is a Sink that keeps what it was told.
type recorder struct {
	begun, finished bool
	samples         []string
	finalStatus     run.Status
}

func (r *recorder) Begin(x *run.Run) error { r.begun = true; return nil }
func (r *recorder) Sample(x *run.Run, i int, v map[string]float64) error {
	r.samples = append(r.samples, x.Results[i].Workload)
	return nil
}
func (r *recorder) Finish(x *run.Run) error { r.finished, r.finalStatus = true, x.Status; return nil }

// order runs three scripted items (3, 3 and 1 repetitions, one warm-up)
// with seed and returns the order in which they ran.
func order(t *testing.T, seed int64) []string {
	t.Helper()
	var calls []string
	vals := []float64{1, 2, 3, 4}
	items := []plan.Item{
		{Workload: &scripted{id: "a", values: vals, calls: &calls}, Repetitions: 3},
		{Workload: &scripted{id: "b", values: vals, calls: &calls}, Repetitions: 3},
		{Workload: &scripted{id: "c", values: vals, calls: &calls}, Repetitions: 1},
	}
	r := &run.Run{Results: NewResults(items)}
	if err := measureItems(context.Background(), r, items, options{Warmup: 1, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return calls
}

func TestRoundsInterleaveAndAreReproducible(t *testing.T) {
	a := order(t, 42)
	if d := cmp.Diff(a, order(t, 42)); d != "" {
		t.Fatalf("same seed, different order:\n%s", d)
	}
	// Warm-up first, in item order; then round 0 has all three items,
	// rounds 1 and 2 only the first two.
	if d := cmp.Diff(a[:3], []string{"a", "b", "c"}); d != "" {
		t.Errorf("warm-ups:\n%s", d)
	}
	for _, r := range []struct {
		from, to int
		want     []string
	}{{3, 6, []string{"a", "b", "c"}}, {6, 8, []string{"a", "b"}}, {8, 10, []string{"a", "b"}}} {
		got := slices.Sorted(slices.Values(a[r.from:r.to]))
		if !cmp.Equal(got, r.want) {
			t.Errorf("steps %d–%d = %v, want %v in some order", r.from, r.to, a[r.from:r.to], r.want)
		}
	}
	if len(a) != 3+3+2+2 {
		t.Errorf("len = %d, want 10", len(a))
	}
	// Different seeds shuffle differently somewhere in 20 tries.
	differs := false
	for seed := int64(1); seed < 20 && !differs; seed++ {
		differs = !cmp.Equal(a, order(t, seed))
	}
	if !differs {
		t.Error("the seed does not change the order")
	}
}

func TestRunRecordsSamplesFailuresAndStatus(t *testing.T) {
	var calls []string
	a := &scripted{id: "a", values: []float64{9, 1, 2, 3}, calls: &calls}
	b := &scripted{id: "b", values: []float64{9, 5, 0, 6}, calls: &calls, errs: map[int]error{2: errors.New("boom")}}
	items := []plan.Item{{Workload: a, Repetitions: 3, Engine: "native"}, {Workload: b, Repetitions: 3, Engine: "native"}}
	r := &run.Run{Results: NewResults(items)}
	rec := &recorder{}
	var events []Event
	err := measureItems(context.Background(), r, items, options{Warmup: 1, Seed: 7, Sink: rec, progress: func(e Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Results[0].Metrics[0].Samples; !cmp.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("a samples = %v (warm-up value 9 must be dropped)", got)
	}
	if got := r.Results[1].Metrics[0].Samples; !cmp.Equal(got, []float64{5, 6}) {
		t.Errorf("b samples = %v", got)
	}
	if f := r.Results[1].Failures; len(f) != 1 || !strings.Contains(f[0], "boom") {
		t.Errorf("b failures = %q", f)
	}
	if w := r.Results[0].Warnings; !cmp.Equal(w, []string{"same note"}) {
		t.Errorf("warnings not deduplicated: %q", w)
	}
	if r.Status != run.StatusFailed || rec.finalStatus != run.StatusFailed || !rec.begun || len(rec.samples) != 5 {
		t.Errorf("status %s, sink %+v", r.Status, rec)
	}
	if len(events) != 2*len(calls) || events[len(events)-1].Done != 8 || events[0].Total != 8 {
		t.Errorf("events: %d for %d calls, last %+v", len(events), len(calls), events[len(events)-1])
	}
}

func TestRunDropsAnItemAfterConsecutiveFailures(t *testing.T) {
	var calls []string
	bad := &scripted{id: "bad", calls: &calls, errs: map[int]error{0: errors.New("x"), 1: errors.New("y")}}
	good := &scripted{id: "good", values: []float64{1, 2, 3, 4}, calls: &calls}
	items := []plan.Item{{Workload: bad, Repetitions: 4}, {Workload: good, Repetitions: 4}}
	r := &run.Run{Results: NewResults(items)}
	if err := measureItems(context.Background(), r, items, options{}); err != nil {
		t.Fatal(err)
	}
	if bad.n != 2 || good.n != 4 {
		t.Errorf("bad ran %d times (want 2), good %d (want 4)", bad.n, good.n)
	}
	if f := r.Results[0].Failures; len(f) != 3 || !strings.Contains(f[2], "dropped") {
		t.Errorf("failures = %q", f)
	}
}

// cancelling workload cancels the run during its second repetition.
type cancelling struct {
	cancel context.CancelFunc
	n      int
}

func (c *cancelling) Info() workload.Info {
	return workload.Info{ID: "c", Metrics: []workload.MetricSpec{{Name: "t", Unit: "s", Better: run.Lower}}}
}

func (c *cancelling) Run(ctx context.Context, _ workload.Env, _ workload.Params) (workload.Sample, error) {
	c.n++
	if c.n == 2 {
		c.cancel()
		<-ctx.Done()
		return workload.Sample{}, ctx.Err()
	}
	return workload.Sample{Values: map[string]float64{"t": 1}}, nil
}

func TestRunInterruptedKeepsFinishedSamples(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &cancelling{cancel: cancel}
	items := []plan.Item{{Workload: c, Repetitions: 5}}
	r := &run.Run{Results: NewResults(items)}
	rec := &recorder{}
	err := measureItems(ctx, r, items, options{Sink: rec})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if r.Status != run.StatusInterrupted || rec.finalStatus != run.StatusInterrupted {
		t.Errorf("status = %s / %s", r.Status, rec.finalStatus)
	}
	if got := r.Results[0].Metrics[0].Samples; len(got) != 1 || len(r.Results[0].Failures) != 0 {
		t.Errorf("samples %v failures %q: want the one finished sample and no failure", got, r.Results[0].Failures)
	}
}

// slow never finishes before its context ends.
type slow struct{}

func (slow) Info() workload.Info {
	return workload.Info{ID: "slow", Metrics: []workload.MetricSpec{{Name: "t", Unit: "s", Better: run.Lower}}}
}
func (slow) Run(ctx context.Context, _ workload.Env, _ workload.Params) (workload.Sample, error) {
	<-ctx.Done()
	return workload.Sample{}, ctx.Err()
}

func TestRunTimeout(t *testing.T) {
	items := []plan.Item{{Workload: slow{}, Repetitions: 1}}
	r := &run.Run{Results: NewResults(items)}
	err := measureItems(context.Background(), r, items, options{Env: workload.Env{Timeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Results[0].Failures; len(f) != 1 || !strings.Contains(f[0], "timeout of 50ms") {
		t.Errorf("failures = %q", f)
	}
}

// deaf returns a good sample once its repetition's time is up, as a
// workload that does not watch its context would.
type deaf struct{ slow }

func (deaf) Run(ctx context.Context, _ workload.Env, _ workload.Params) (workload.Sample, error) {
	<-ctx.Done()
	return workload.Sample{Values: map[string]float64{"t": 1}}, nil
}

// TestRunTimeoutDeafWorkload: a sample that comes after the timeout is a
// failure too, so --timeout holds whatever the workload does (issue 36).
func TestRunTimeoutDeafWorkload(t *testing.T) {
	items := []plan.Item{{Workload: deaf{}, Repetitions: 1}}
	r := &run.Run{Results: NewResults(items)}
	if err := measureItems(context.Background(), r, items, options{Env: workload.Env{Timeout: time.Millisecond}}); err != nil {
		t.Fatal(err)
	}
	if f := r.Results[0].Failures; len(f) == 0 || !strings.Contains(f[0], "timeout of 1ms") || len(r.Results[0].Metrics[0].Samples) != 0 || r.Status != run.StatusFailed {
		t.Errorf("failures = %q, samples %v, status %s", f, r.Results[0].Metrics[0].Samples, r.Status)
	}
}

func TestCheckSampleRefusesNonFinite(t *testing.T) {
	info := (&scripted{id: "x"}).Info()
	nan := 0.0
	nan /= nan
	for _, s := range []workload.Sample{{}, {Values: map[string]float64{"t": nan}}} {
		if err := checkSample(info, s); err == nil {
			t.Errorf("checkSample(%v) = nil", s.Values)
		}
	}
}
