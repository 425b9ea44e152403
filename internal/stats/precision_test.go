package stats

import (
	"math"
	"testing"
)

func TestHalfWidthPct(t *testing.T) {
	if _, ok := HalfWidthPct([]float64{1, 2, 3, 4, 5}); ok {
		t.Error("5 values have no 95% interval of the median, so no precision")
	}
	if _, ok := HalfWidthPct([]float64{0, 0, 0, 0, 0, 0}); ok {
		t.Error("a median of 0 has no relative precision")
	}
	// Six values: the interval is their range, [96, 104] around 100.
	pct, ok := HalfWidthPct([]float64{96, 99, 100, 100, 101, 104})
	if !ok || math.Abs(pct-4) > 1e-9 {
		t.Errorf("HalfWidthPct = %v, %v; want 4 (the wider side)", pct, ok)
	}
}

func TestRepetitionsFor(t *testing.T) {
	for _, c := range []struct {
		n                int
		achieved, target float64
		want             int
	}{
		{10, 4, 2, 40},   // twice as wide: four times the repetitions
		{10, 2, 2, 10},   // met
		{10, 1, 2, 10},   // met
		{10, 2.1, 2, 12}, // 11.025, rounded up
		{100, 2.01, 2, 102},
		{10, 1e200, 1, 1e9},             // bounded
		{0, 3, 0, 1},                    // no target: nothing to reach
		{10, 4.0000000000000036, 2, 40}, // a float's last bits do not add one
	} {
		if got := RepetitionsFor(c.n, c.achieved, c.target); got != c.want {
			t.Errorf("RepetitionsFor(%d, %v, %v) = %d, want %d", c.n, c.achieved, c.target, got, c.want)
		}
	}
}

// TestProjected: the 1/√n projection goes down as well as up, and is
// bounded.
func TestProjected(t *testing.T) {
	for _, c := range []struct {
		n                int
		achieved, target float64
		want             int
	}{
		{10, 4, 2, 40},
		{10, 4, 5, 7}, // 6.4: a met target needs fewer
		{10, 4, 4, 10},
		{10, 0, 2, 1},
		{10, 1e200, 1, 1e9},
		{10, 3, 0, 0},
		{10, math.NaN(), 2, 0},
	} {
		if got := Projected(c.n, c.achieved, c.target); got != c.want {
			t.Errorf("Projected(%d, %v, %v) = %d, want %d", c.n, c.achieved, c.target, got, c.want)
		}
	}
}
