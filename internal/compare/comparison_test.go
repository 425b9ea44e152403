package compare

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// threeSides are a baseline and two sides: B is clearly faster in both
// workloads, C only a little in one (its raw p passes α alone but not
// Holm's correction over the four hypotheses of both sides).
func threeSides() []Side {
	scaled := func(id, label string, sp, pp float64) *run.Run {
		s := func(f float64, xs ...float64) []float64 {
			out := make([]float64, len(xs))
			for i, x := range xs {
				out[i] = x * f
			}
			return out
		}
		return mkRun(id, label,
			res("syscall-basic", map[string]any{"loops": int64(1000)},
				lower("usecs_per_op", s(sp, 1.0, 1.01, 0.99, 1.02, 0.98, 1.0)...)),
			res("sched-pipe", map[string]any{"loops": int64(1000)},
				lower("usecs_per_op", s(pp, 5.0, 5.05, 4.95, 5.1, 4.9, 5.0)...)),
		)
	}
	return []Side{
		side("on", []*run.Run{scaled("r-on", "on", 1, 1)}, envOn()),
		side("off", []*run.Run{scaled("r-off", "off", 0.5, 0.6)}, envOff()),
		side("half", []*run.Run{scaled("r-half", "half", 0.97, 1)}, envOff()),
	}
}

func TestCompareSidesHolmOverEverySide(t *testing.T) {
	sides := threeSides()
	mr, err := CompareSides(sides, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mr.Schema != ComparisonSchema || mr.Multiplicity != Multiplicity || mr.Family != 4 || len(mr.Comparisons) != 2 {
		t.Fatalf("schema %q multiplicity %q family %d comparisons %d", mr.Schema, mr.Multiplicity, mr.Family, len(mr.Comparisons))
	}
	if mr.Baseline.Ref != "on" || mr.Comparisons[1].A.Ref != "on" || mr.Comparisons[1].B.Ref != "half" {
		t.Fatalf("sides: %v", mr.Sides())
	}
	// The adjusted p-values are Holm's over the raw p of all four primaries.
	var raw []float64
	var adj []float64
	for _, rep := range mr.Comparisons {
		if rep.Multiplicity != Multiplicity {
			t.Errorf("%s: multiplicity %q", rep.B.Ref, rep.Multiplicity)
		}
		for _, w := range rep.Workloads {
			raw = append(raw, w.Metrics[0].Test.P)
			adj = append(adj, *w.Metrics[0].PAdjusted)
		}
	}
	if diff := cmp.Diff(stats.Holm(raw), adj); diff != "" {
		t.Errorf("adjusted p (-holm over the family +got):\n%s", diff)
	}
	// The pairwise report of C alone corrects over two hypotheses only: a
	// smaller family, p-values no larger.
	alone, err := pair(sides[0], sides[2], Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range alone.Workloads {
		if got := *mr.Comparisons[1].Workloads[i].Metrics[0].PAdjusted; got < *w.Metrics[0].PAdjusted {
			t.Errorf("%s: p adj %v across sides below the pairwise %v", w.ID, got, *w.Metrics[0].PAdjusted)
		}
	}
	if c := mr.Conclusions; len(c) != 2 || c[0].Side != "off" || c[0].Conclusion.Kind != ConclusionDifference || c[0].Conclusion.Significant != 2 {
		t.Errorf("conclusions %+v", c)
	}
	// A row per workload and metric, a cell per other side, baseline order.
	if len(mr.Rows) != 2 || mr.Rows[0].Workload.ID != "syscall-basic" || mr.Rows[1].Workload.ID != "sched-pipe" {
		t.Fatalf("rows %+v", mr.Rows)
	}
	for _, r := range mr.Rows {
		if len(r.Sides) != 2 || r.Sides[0] == nil || r.Sides[1] == nil || r.Baseline.Center != r.Sides[1].A.Center {
			t.Errorf("row %s: %+v", r.Workload.ID, r)
		}
	}
	if !near(mr.Rows[0].Sides[0].B.Center, 0.5) || !near(mr.Rows[1].Sides[0].B.Center, 3) {
		t.Errorf("off medians %v %v", mr.Rows[0].Sides[0].B.Center, mr.Rows[1].Sides[0].B.Center)
	}
}

// A side that lacks a workload leaves its cell empty; the row stays.
func TestCompareSidesMissingWorkload(t *testing.T) {
	sides := threeSides()
	sides[2].Runs[0].Results = sides[2].Runs[0].Results[:1]
	mr, err := CompareSides(sides, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(mr.Rows) != 2 || mr.Rows[1].Sides[0] == nil || mr.Rows[1].Sides[1] != nil {
		t.Fatalf("rows %+v", mr.Rows)
	}
	if len(mr.Comparisons[1].OnlyA) != 1 || mr.Family != 3 {
		t.Errorf("only A %v, family %d", mr.Comparisons[1].OnlyA, mr.Family)
	}
}

func TestCompareSidesErrors(t *testing.T) {
	sides := threeSides()
	if _, err := CompareSides(sides[:1], Options{}); err == nil {
		t.Error("one side accepted")
	}
	if _, err := CompareSides([]Side{sides[0], sides[1], sides[1]}, Options{}); !errors.Is(err, ErrDuplicateSide) {
		t.Errorf("duplicate side: %v", err)
	}
	again := sides[2]
	again.Ref = "again"
	again.Runs = sides[1].Runs
	if _, err := CompareSides([]Side{sides[0], sides[1], again}, Options{}); !errors.Is(err, ErrSameRun) {
		t.Errorf("two sides of the same runs: %v", err)
	}
	// The same run on both sides of two is refused as it always was.
	if _, err := CompareSides([]Side{sides[1], again}, Options{}); !errors.Is(err, ErrSameRun) || !strings.Contains(err.Error(), "compare two different runs or labels") {
		t.Errorf("a pair of the same run: %v", err)
	}
	more := sides[2]
	more.Ref = "more"
	more.Runs = append(slices.Clone(sides[1].Runs), mkRun("r-more", "more", res("syscall-basic", nil, lower("usecs_per_op", 1))))
	if _, err := CompareSides([]Side{sides[0], sides[1], more}, Options{}); !errors.Is(err, ErrRunOnTwoSides) {
		t.Errorf("a run on two sides: %v", err)
	}
	if _, err := CompareSides(sides, Options{Alpha: 2}); err == nil {
		t.Error("alpha 2 accepted")
	}
}

func TestSideLetter(t *testing.T) {
	for i, want := range map[int]string{0: "A", 1: "B", 25: "Z", 26: "AA", 27: "AB", 701: "ZZ", 702: "AAA"} {
		if got := SideLetter(i); got != want {
			t.Errorf("SideLetter(%d) = %q, want %q", i, got, want)
		}
	}
}
