package campaign

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/store"
)

// TestCampaignAdaptiveSizing: after the planned boots, adaptive repetition
// sizes the next round from the measured variance components and costs,
// and the round's runs are measured with the repetitions it chose (the
// count is stored in the campaign's options).
func TestCampaignAdaptiveSizing(t *testing.T) {
	r := newRig(t)
	r.e.Extend = func(ctx context.Context, rec *store.Campaign, opts Options) (Extension, error) {
		return adapt(ctx, r.db, rec, opts, r.clock)
	}
	// Boot b of on has the samples m−0.01, m+0.01 around m = 1.1 (odd b)
	// or 1.0 (even); off the same doubled. On: MSB = 2·4·0.05²/3 =
	// 0.0066667, MSW = 0.0002, σ²_between = (0.0066667 − 0.0002)/2 =
	// 0.0032333; off 4 times both; relative to each mean the same:
	// within/between = 0.061856, a boot-to-boot share of 94%. A boot
	// takes 10 minutes and a repetition 0.5 s (the engine's clock adds a
	// second a call besides: a boot costs 10:03): r* = ⌈√(603/0.5 ·
	// 0.061856)⌉ = ⌈8.64⌉ = 9.
	r.samples = func(m Measurement) []float64 {
		mean, d := 1.0, 0.01
		if m.Campaign.Boot%2 == 1 {
			mean = 1.1
		}
		if strings.HasSuffix(m.Label, "-off") {
			mean, d = 2*mean, 2*d
		}
		n := max(m.Options.Repetitions, 1)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = mean - d + 2*d*float64(i%2)
		}
		return xs
	}
	r.bootTime, r.repTime = 10*time.Minute, 500*time.Millisecond
	_, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 4,
		Seed: 7, Label: "cmp", Options: Options{Request: plan.Request{Suite: "quick", Repetitions: 2}, TargetCI: 1, Budget: 4 * time.Hour,
			Exe: "/usr/local/bin/sectax", DB: r.dbPath}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.drive(8); err != nil {
		t.Fatal(err)
	}
	c := r.load()
	var opts Options
	if err := json.Unmarshal([]byte(c.Options), &opts); err != nil {
		t.Fatal(err)
	}
	// 9 repetitions a boot; the ±1 point target needs far more boots than
	// a round gives, so the round boots on and off MaxRoundBoots = 3 times.
	if c.State != Running || len(c.Steps) != 8+2*3 || opts.Repetitions != 9 {
		t.Fatalf("state %s, %d steps, %d repetitions per boot (%s); said %q", c.State, len(c.Steps), opts.Repetitions, c.Message, r.said())
	}
	if !slices.ContainsFunc(r.said(), func(l string) bool {
		return strings.HasPrefix(l, "adaptive: boot-to-boot spread is 94% of syscall-basic's variance") &&
			strings.Contains(l, "next boots with 9 repetitions each")
	}) {
		t.Errorf("said %q", r.said())
	}
	// The round's first boot is measured with them; its progress says
	// that more boots may follow.
	r.forget()
	if err := r.drive(1); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.said(), func(l string) bool { return strings.HasPrefix(l, "step 9 of at least 14: ") }) {
		t.Errorf("an adaptive campaign's step: said %q", r.said())
	}
	if n := len(r.measured); n != 9 || r.measured[8].Options.Repetitions != 9 || r.measured[7].Options.Repetitions != 2 {
		t.Errorf("%d measured; the 8th with %d repetitions, the 9th with %d", n, r.measured[7].Options.Repetitions, r.measured[n-1].Options.Repetitions)
	}
}
