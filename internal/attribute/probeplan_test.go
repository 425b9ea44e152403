package attribute

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/workload"
)

// TestProbePlan: one item per probe workload and state, a note per control
// the kernel does not offer, nothing to run (and no --cpus check) without
// an available control.
func TestProbePlan(t *testing.T) {
	reg := workload.Default()
	offers := []workload.SpecCtlOffer{
		{Control: "ssbd", Available: true, Kernel: "prctl"},
		{Control: "l1d_flush", Available: false, Kernel: "EINVAL", Reason: "boot with l1d_flush=on"},
	}
	pl, err := ProbePlan(reg, workload.Quick, offers, 3, "0")
	if err != nil {
		t.Fatal(err)
	}
	states := States(offers)
	if len(pl.Items) != len(workload.Default().Probes())*len(states) || len(pl.CPUs) != 1 {
		t.Fatalf("%d items, cpus %v; want %d items, cpus [0]", len(pl.Items), pl.CPUs, len(workload.Default().Probes())*len(states))
	}
	for _, it := range pl.Items {
		if it.Repetitions != 3 || it.Engine != "native" {
			t.Errorf("item %s: %d repetitions, engine %s", it.Workload.Info().ID, it.Repetitions, it.Engine)
		}
	}
	if len(pl.Notes) != 1 || !strings.Contains(pl.Notes[0], "l1d_flush unavailable here: boot with l1d_flush=on") {
		t.Errorf("notes %q", pl.Notes)
	}
	if _, err := ProbePlan(reg, workload.Quick, offers, 3, "x"); exit.Of(err) != exit.Usage {
		t.Errorf("--cpus x: %v", err)
	}
	none, err := ProbePlan(reg, workload.Quick, offers[1:], 3, "x")
	if err != nil || len(none.Items) != 0 {
		t.Errorf("no control offered: %v, %d items", err, len(none.Items))
	}
}
