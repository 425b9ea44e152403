package adaptive

import (
	"fmt"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// bootSide is a side of one run per boot, each holding its samples of
// syscall-basic.
func bootSide(ref string, boots ...[]float64) compare.Side {
	var runs []*run.Run
	for i, xs := range boots {
		runs = append(runs, &run.Run{Schema: run.Schema, ID: fmt.Sprintf("%s-%d", ref, i), Label: ref, Status: run.StatusComplete,
			Engine: "native", Env: &sysinfo.Snapshot{BootID: fmt.Sprintf("%s-boot-%d", ref, i)},
			Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
				Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}})
	}
	return compare.RunsSide(ref, compare.KindLabel, runs, nil)
}

// TestAllocate: the repetitions per boot and the boots a side from scripted
// boots whose variance components are known.
func TestAllocate(t *testing.T) {
	// on: boots {1,3} {5,7} {9,11}: mean 6, σ²_between 15, σ²_within 2
	// (stats.TestVarianceLevels); relative to 6² = 36: 15/36 and 2/36.
	// off: the same doubled: mean 12, 60 and 8, relative to 144 the same
	// 15/36 and 2/36. Pooled: 15/36 and 2/36, a boot-to-boot share of
	// 15/17 = 88%.
	on := bootSide("on", []float64{1, 3}, []float64{5, 7}, []float64{9, 11})
	off := bootSide("off", []float64{2, 6}, []float64{10, 14}, []float64{18, 22})
	rep, err := pairOf(compare.CompareSides([]compare.Side{on, off}, compare.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	reps := []*compare.Report{rep}
	for _, tc := range []struct {
		name        string
		costs       Costs
		base        int
		target      float64
		runs, boots int
	}{
		// r* = ⌈√(600/1 · (2/36)/(15/36))⌉ = ⌈√80⌉ = 9 (at most max(10,
		// 3·2) = 10). Boots at ±50 points: z²·2·(15/36 + 2/36/9)/0.5² =
		// 3.8415·0.84568/0.25 = 12.99 → 13.
		{"costly boots", Costs{Boot: 600 * time.Second, Rep: time.Second}, 2, 50, 9, 13},
		// r* = ⌈√(60/2 · 2/15)⌉ = √4 = 2. Boots at ±50: 3.8415·2·(15/36
		// + 1/36)/0.25 = 13.66 → 14.
		{"cheap boots", Costs{Boot: time.Minute, Rep: 2 * time.Second}, 2, 50, 2, 14},
		// No cost measured: the count so far (5) is kept. Boots at ±1000
		// points are fewer than an interval needs: 4.
		{"no cost", Costs{}, 5, 1000, 5, MinBootsForInterval},
		// Boots 100 times as costly: ⌈√8000⌉ = 90, bounded to max(10,
		// 3·1) = 10 repetitions a boot.
		{"bounded", Costs{Boot: 60000 * time.Second, Rep: time.Second}, 1, 50, 10, 0},
	} {
		a, ok := Allocate(reps, tc.target, tc.costs, tc.base)
		if !ok || a.Runs != tc.runs || (tc.boots > 0 && a.Boots != tc.boots) || a.Workload != "syscall-basic" || a.Have != 3 ||
			fmt.Sprintf("%.3f", a.Share) != "0.882" {
			t.Errorf("%s: %+v %v, want %d runs, %d boots", tc.name, a, ok, tc.runs, tc.boots)
		}
	}
	a, _ := Allocate(reps, 50, Costs{Boot: 600 * time.Second, Rep: time.Second}, 2)
	if got := a.String(); got != "adaptive: boot-to-boot spread is 88% of syscall-basic's variance (a boot costs 10:00, a repetition 1.0s): next boots with 9 repetitions each; about 13 boots a side reach the target (3 so far)" {
		t.Errorf("line %q", got)
	}
	// 10 boots missing: at most 3 a round; 2 configurations at 10 min a
	// boot: 3 rounds need 60 min, 2 need 40.
	if k := a.RoundBoots(2, time.Hour, 10*time.Minute); k != 3 {
		t.Errorf("RoundBoots = %d, want 3", k)
	}
	if k := a.RoundBoots(2, 45*time.Minute, 10*time.Minute); k != 2 {
		t.Errorf("RoundBoots in 45 min = %d, want 2", k)
	}
	if k := a.RoundBoots(2, time.Minute, 10*time.Minute); k != 1 {
		t.Errorf("RoundBoots with no time = %d, want 1", k)
	}

	// One boot a side: nothing to split.
	rep, err = pairOf(compare.CompareSides([]compare.Side{bootSide("on", []float64{1, 3}), bootSide("off", []float64{2, 6})}, compare.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := Allocate([]*compare.Report{rep}, 2, Costs{}, 2); ok {
		t.Errorf("one boot a side: allocated %+v", a)
	}
}

// TestLevelCosts: a repetition costs the measuring time over the passes
// (warm-ups included), a boot the rest of the wall time.
func TestLevelCosts(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	mk := func(took time.Duration, reps, warmup int) *run.Run {
		return &run.Run{Started: t0, Finished: t0.Add(took), Repetitions: reps, Warmup: warmup}
	}
	// 2 boots: 12 s for 5+1 passes and 20 s for 9+1: 32 s / 16 passes =
	// 2 s a repetition; 14 measured: 28 s; (100 − 28)/2 = 36 s a boot.
	c := LevelCosts(100*time.Second, []*run.Run{mk(12*time.Second, 5, 1), mk(20*time.Second, 9, 1)})
	if c.Rep != 2*time.Second || c.Boot != 36*time.Second || c.PerBoot(4) != 44*time.Second {
		t.Errorf("costs %+v", c)
	}
	if c := LevelCosts(time.Minute, nil); c != (Costs{}) {
		t.Errorf("no runs: %+v", c)
	}
}

// pairOf is the one report of a comparison of two sides.
func pairOf(c *compare.Comparison, err error) (*compare.Report, error) {
	if err != nil {
		return nil, err
	}
	return c.Comparisons[0], nil
}
