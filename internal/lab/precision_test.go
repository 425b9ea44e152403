package lab

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/workload"
)

// TestMeasureInputCarriesPrecision: the precision rule of `lab
// --precision` reaches the guest in the measure task's input, and the
// guest's planning (as guestMeasure plans) gives every workload the
// rule's minimum and keeps the rule for the runner.
func TestMeasureInputCarriesPrecision(t *testing.T) {
	in := MeasureInput{RunID: "20261202T070000-000001", Label: "lab-off", Config: bootconfig.Off,
		Plan: []bootconfig.Config{bootconfig.On, bootconfig.Off},
		Request: plan.Request{Suite: "quick", Only: []string{"syscall-basic", "ctl-user"}, Warmup: 1,
			Precision: 2, MaxTime: 90 * time.Second, DetectWarmup: true}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var got MeasureInput
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	req := got.Request
	req.Timeout, req.Engines = plan.DefaultTimeout, []string{"native"}
	pl, err := plan.Make(context.Background(), workload.Default(), req)
	if err != nil {
		t.Fatal(err)
	}
	if r := pl.Request; r.Precision != 2 || r.MaxTimeOf() != 90*time.Second || !r.DetectWarmup {
		t.Errorf("the guest plans precision %v, max-time %v, detected warm-up %v (input %s)", r.Precision, r.MaxTimeOf(), r.DetectWarmup, b)
	}
	for _, it := range pl.Items {
		if it.Repetitions != plan.MinPrecisionRepetitions {
			t.Errorf("%s: minimum %d", it.Workload.Info().ID, it.Repetitions)
		}
	}
}
