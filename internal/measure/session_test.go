package measure

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
)

// TestStartAndOutcome: start records the seed it was given (or a random
// one) and the warm-up, and gives every item a result; Outcome turns the
// status into the error kind.
func TestStartAndOutcome(t *testing.T) {
	var calls []string
	items := []plan.Item{{Workload: &scripted{id: "a", calls: &calls}, Repetitions: 2}, {Workload: &scripted{id: "b", calls: &calls}, Repetitions: 2}}
	r := &run.Run{}
	if err := start(r, items, nil, 7, 1); err != nil {
		t.Fatal(err)
	}
	if r.Seed != 7 || r.Warmup != 1 || len(r.Results) != 2 || r.Results[1].Workload != "b" {
		t.Errorf("seed %d, warmup %d, results %+v", r.Seed, r.Warmup, r.Results)
	}
	if err := start(r, items, nil, 0, 0); err != nil || r.Seed <= 0 {
		t.Errorf("random seed %d, %v", r.Seed, err)
	}
	if err := start(r, items, []int{1 << 20}, 1, 0); exit.Of(err) != exit.Usage || !strings.HasPrefix(err.Error(), "--cpus: ") {
		t.Errorf("an impossible CPU: %v", err)
	}
	r.Results[0].Metrics[0].Samples = []float64{1, 2}
	r.Status = run.StatusComplete
	if err := Outcome(r); err != nil {
		t.Errorf("complete: %v", err)
	}
	for status, want := range map[run.Status]exit.Kind{run.StatusInterrupted: exit.Interrupted, run.StatusFailed: exit.Runtime} {
		r.Status = status
		err := Outcome(r)
		if err == nil || exit.Of(err) != want {
			t.Errorf("%s: %v (kind %v), want %v", status, err, exit.Of(err), want)
		}
		if status == run.StatusInterrupted && !strings.Contains(err.Error(), "2 samples of 2 workloads finished") {
			t.Errorf("interrupted: %v", err)
		}
	}
}
