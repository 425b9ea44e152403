package campaign

import (
	"context"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/plan"
)

// TestCampaignCarriesPrecision: the precision rule of `campaign start
// --precision` reaches every step's measurement through the plan on the
// host (reread after each reboot), as the run selection does.
func TestCampaignCarriesPrecision(t *testing.T) {
	r := newRig(t)
	req := plan.Request{Suite: "quick", Precision: 2.5, MaxTime: 3 * time.Minute, DetectWarmup: true}
	if _, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 1,
		Seed: 7, Label: "cmp", Options: Options{Request: req, Exe: "/usr/local/bin/sectax", DB: r.dbPath}}); err != nil {
		t.Fatal(err)
	}
	if err := r.drive(10); err != nil {
		t.Fatal(err)
	}
	if len(r.measured) != 2 {
		t.Fatalf("%d steps measured, want 2", len(r.measured))
	}
	for i, m := range r.measured {
		got := m.Options.Request
		if got.Precision != 2.5 || got.MaxTime != 3*time.Minute || !got.DetectWarmup {
			t.Errorf("step %d measured with precision %v, max-time %v, detected warm-up %v", i+1, got.Precision, got.MaxTime, got.DetectWarmup)
		}
	}
}
