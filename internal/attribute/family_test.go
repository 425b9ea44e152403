package attribute

import (
	"fmt"
	"testing"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// TestAttributionOneFamily: an attribution over k configurations and w
// workloads is one Holm family of k×w hypotheses, as `sectax compare on
// CONFIG...` corrects them. The samples are scripted so that every
// configuration's raw p is the smallest the U test gives for 4+4 samples
// (0.0286, one workload): corrected over its own pair (one hypothesis) it
// is significant at 0.05; over the whole attribution (k = 3
// configurations, Holm's smallest factor 3: 0.086) it is not. The test
// fails under per-pair correction.
func TestAttributionOneFamily(t *testing.T) {
	mk := func(id string, centre float64) []*run.Run {
		xs := []float64{centre, centre * 1.001, centre * 0.999, centre * 1.002}
		return []*run.Run{{Schema: run.Schema, ID: id, Label: id, Results: []run.Result{{
			Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
			Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}}
	}
	arms := []Arm{{Name: "on", Runs: mk("r-on", 12)}}
	for i, name := range []string{"off", "no-meltdown", "no-verw"} {
		arms = append(arms, Arm{Name: name, Runs: mk(fmt.Sprintf("r-%d", i), 10-float64(i))})
	}
	a, err := Attribute(arms, nil, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if a.Family != 3 || a.Multiplicity != "holm" {
		t.Fatalf("family %d (%s), want 3 hypotheses: 3 configurations × 1 workload", a.Family, a.Multiplicity)
	}
	wl := a.Workloads[0]
	effects := append([]Effect{*wl.Total}, wl.Others...)
	for _, p := range wl.Parts {
		effects = append(effects, p.Effect)
	}
	var raw []float64
	for _, e := range effects {
		raw = append(raw, e.P)
	}
	want := stats.Holm(raw)
	for i, e := range effects {
		if e.P > 0.05 {
			t.Fatalf("%s: raw p %v, the script wants it below alpha", e.Config, e.P)
		}
		if e.PAdjusted != want[i] {
			t.Errorf("%s: adjusted p %v, want Holm over the %d configurations %v", e.Config, e.PAdjusted, len(raw), want[i])
		}
		// Per pair (one hypothesis) the raw p would be significant; over
		// the family it is not.
		if e.Significant {
			t.Errorf("%s: significant at p adj %v: corrected per pair, not over the attribution", e.Config, e.PAdjusted)
		}
	}
}
