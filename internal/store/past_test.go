package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/run"
)

// TestPastRunsOfLabBoots: a lab run took its whole boot (the lab block's
// VM wall time), not only its measuring span; a run measured on a
// machine, or a lab run without the figure, took its span. Runs measured
// under another accelerator, or on the machine, are not a lab's past.
func TestPastRunsOfLabBoots(t *testing.T) {
	d, _ := openTemp(t)
	ctx := context.Background()
	host := testRun("20261130T060000-aaaaaa", "on") // 90 s span
	withWall := testRun("20261130T060000-bbbbbb", "lab-on")
	withWall.Lab = &run.Lab{Accel: "tcg", CPUModel: "Skylake-Client-v1", VMWallS: 150.5}
	without := testRun("20261130T060000-cccccc", "lab-off")
	without.Lab = &run.Lab{Accel: "tcg", CPUModel: "Skylake-Client-v1"}
	var docs []run.Doc
	for _, r := range []*run.Run{host, withWall, without} {
		docs = append(docs, run.Doc{Run: r})
	}
	if _, err := d.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	took := func(accel string) []time.Duration {
		runs, err := d.PastRuns(ctx, "", "quick", "native", accel)
		if err != nil {
			t.Fatal(err)
		}
		var out []time.Duration
		for _, r := range runs {
			out = append(out, r.Took())
		}
		return out
	}
	if got := took("tcg"); !slices.Equal(got, []time.Duration{150500 * time.Millisecond, 90 * time.Second}) {
		t.Errorf("tcg: %v; want the whole boot of one and the span of the other", got)
	}
	if got := took(""); !slices.Equal(got, []time.Duration{90 * time.Second}) {
		t.Errorf("on the machine: %v", got)
	}
	if got := took("kvm"); got != nil {
		t.Errorf("kvm: %v, want none", got)
	}
}

// TestPastRunsNewest: an estimate reads the newest MaxPastRuns matching
// runs, oldest first, and leaves out runs of other hosts, suites,
// engines and unfinished runs.
func TestPastRunsNewest(t *testing.T) {
	d, _ := openTemp(t)
	ctx := context.Background()
	var docs []run.Doc
	var want []string
	for i := range MaxPastRuns + 2 {
		r := testRun(fmt.Sprintf("20261130T06%02d00-aaaaaa", i), fmt.Sprintf("r%d", i))
		docs = append(docs, run.Doc{Run: r})
		if i >= 2 {
			want = append(want, r.ID)
		}
	}
	other := testRun("20261130T070000-bbbbbb", "standard")
	other.Suite = "standard"
	perf := testRun("20261130T070100-cccccc", "perf")
	perf.Engine = "perf"
	open := testRun("20261130T070200-dddddd", "open")
	open.Status = run.StatusRunning
	docs = append(docs, run.Doc{Run: other}, run.Doc{Run: perf}, run.Doc{Run: open})
	if _, err := d.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	runs, err := d.PastRuns(ctx, "", "quick", "native", "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("past runs %v\nwant %v", got, want)
	}
	if runs, _ := d.PastRuns(ctx, "another-host", "quick", "native", ""); runs != nil {
		t.Errorf("another host's: %v", runs)
	}
}
