package store

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

// runWithStore measures syscall-basic (a real getppid loop, 2000
// iterations) in a measuring session into the store; cancelAfter > 0
// cancels the run after that many measured repetitions.
func runWithStore(t *testing.T, d *DB, id string, reps, cancelAfter int) *run.Run {
	t.Helper()
	w, err := workload.Default().Lookup("syscall-basic")
	if err != nil {
		t.Fatal(err)
	}
	items := []plan.Item{{Workload: w, Params: workload.Params{"loops": int64(2000)}, Engine: "native", Repetitions: reps}}
	pl := &plan.Plan{Suite: "quick", Items: items, Request: plan.Request{Suite: "quick", Repetitions: reps, Warmup: 1, Seed: 3, Timeout: 10 * time.Second}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := measure.Session{Plan: pl, Sink: &cancelling{DB: d, after: cancelAfter, cancel: cancel},
		Meta: measure.Meta{ID: id, Label: "on", Engine: "native", Now: func() time.Time { return time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC) }}}
	r, err := s.Measure(ctx, measure.Discard{})
	if err != nil && cancelAfter == 0 {
		t.Fatal(err)
	}
	return r
}

// cancelling is the store as a run's sink that cancels the run once
// after measured repetitions are recorded (0: never).
type cancelling struct {
	*DB
	after, n int
	cancel   func()
}

func (c *cancelling) Sample(r *run.Run, result int, values map[string]float64) error {
	err := c.DB.Sample(r, result, values)
	if c.n++; c.n == c.after {
		c.cancel()
	}
	return err
}

// testRunnerIntoStore: what the runner measured is what the store holds,
// for a complete run and for one interrupted after two repetitions.
func testRunnerIntoStore(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	for _, c := range []struct {
		id          string
		cancelAfter int
		status      run.Status
		samples     int
	}{
		{"complete", 0, run.StatusComplete, 4},
		{"interrupted", 2, run.StatusInterrupted, 2},
	} {
		r := runWithStore(t, d, c.id, 4, c.cancelAfter)
		if r.Status != c.status {
			t.Fatalf("%s: status %s, want %s", c.id, r.Status, c.status)
		}
		got, err := d.Get(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != c.status || len(got.Results[0].Metrics[0].Samples) != c.samples {
			t.Fatalf("%s: stored status %s with %d samples, want %s with %d", c.id, got.Status,
				len(got.Results[0].Metrics[0].Samples), c.status, c.samples)
		}
		var want, have bytes.Buffer
		run.Export(&want, []*run.Run{r})
		run.Export(&have, []*run.Run{got})
		if diff := cmp.Diff(want.String(), have.String()); diff != "" {
			t.Errorf("%s: stored run differs from the measured one (-measured +stored):\n%s", c.id, diff)
		}
	}
}
