package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/run"
)

// TestDurationsOfLabBoots: a lab run's duration is its whole boot (the lab
// block's VM wall time), not only its measuring span; a run measured on a
// machine, or a lab run without the figure, counts its span.
func TestDurationsOfLabBoots(t *testing.T) {
	d, _ := openTemp(t)
	ctx := context.Background()
	host := testRun("20261130T060000-aaaaaa", "on") // 90 s span
	withWall := testRun("20261130T060000-bbbbbb", "lab-on")
	withWall.Lab = &run.Lab{Accel: "tcg", CPUModel: "Skylake-Client-v1", VMWallS: 150.5}
	without := testRun("20261130T060000-cccccc", "lab-off")
	without.Lab = &run.Lab{Accel: "tcg", CPUModel: "Skylake-Client-v1"}
	var docs []Doc
	for _, r := range []*run.Run{host, withWall, without} {
		docs = append(docs, Doc{Run: r})
	}
	if _, err := d.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	got, err := d.Durations(ctx, "", "quick", "native", "tcg")
	if err != nil || !slices.Equal(got, []time.Duration{150500 * time.Millisecond, 90 * time.Second}) {
		t.Errorf("tcg: %v, %v; want the whole boot of one and the span of the other", got, err)
	}
	if got, _ := d.Durations(ctx, "", "quick", "native", ""); !slices.Equal(got, []time.Duration{90 * time.Second}) {
		t.Errorf("on the machine: %v", got)
	}
}
