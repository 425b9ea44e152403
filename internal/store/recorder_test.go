package store

import (
	"context"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/ui"
)

// TestRecorder: a recorded run is stored whole; a store that cannot be
// written is told once and Err says why, while the measurement goes on.
func TestRecorder(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	r := testRun("20261130T060000-aaaaaa", "on")
	rec := &Recorder{DB: d, Patience: ctx}
	rec.Begin(r)
	rec.Sample(r, 0, map[string]float64{"usecs_per_op": 0.2, "ops_per_sec": 5e6})
	rec.Finish(r)
	if rec.Err() != nil {
		t.Fatal(rec.Err())
	}
	if _, err := d.Get(ctx, r.ID); err != nil {
		t.Fatalf("the recorded run: %v", err)
	}
	if err := d.CheckNewLabel(ctx, r.ID); exit.Of(err) != exit.Usage {
		t.Errorf("a label that is a run id: %v", err)
	}
	if err := d.CheckNewLabel(ctx, "on"); err != nil {
		t.Errorf("a label: %v", err)
	}
	broken, _ := openTemp(t)
	broken.Close()
	said := &ui.Recorder{}
	rec = NewRecorder(ctx, broken, said)
	r2 := testRun("20261130T060000-bbbbbb", "on")
	rec.Begin(r2)
	rec.Sample(r2, 0, map[string]float64{"usecs_per_op": 0.2})
	rec.Finish(r2)
	if n := len(said.Notes()); n != 1 || rec.Err() == nil || !strings.Contains(said.Notes()[0], "cannot store run "+r2.ID) {
		t.Errorf("told %q, Err %v; want once and an error", said.Notes(), rec.Err())
	}
}
