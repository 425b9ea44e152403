package stats

import (
	"math"
	"sort"
	"testing"
)

func TestRatioInterval(t *testing.T) {
	a := []float64{1.00, 1.02, 0.98, 1.01, 0.99, 1.03}
	b := make([]float64, len(a))
	for i, x := range a {
		b[i] = x * 0.5 * (1 + 0.001*float64(i))
	}
	lo, hi, ok := RatioInterval(a, b, 0.95)
	if !ok || lo > 0.5 || hi < 0.5 || lo < 0.45 || hi > 0.55 {
		t.Fatalf("B = A/2: interval [%v, %v] ok=%v, want around 0.5", lo, hi, ok)
	}
	// For 6+6 at 95% the cut-off is the 6th smallest and 6th largest of
	// the 36 pairwise differences (exact U distribution: P(U ≤ 5) = 0.0206,
	// P(U ≤ 6) = 0.0325).
	var d []float64
	for _, x := range a {
		for _, y := range b {
			d = append(d, math.Log(y)-math.Log(x))
		}
	}
	sort.Float64s(d)
	if math.Abs(math.Log(lo)-d[5]) > 1e-12 || math.Abs(math.Log(hi)-d[30]) > 1e-12 {
		t.Errorf("6+6: interval [%v, %v], want [%v, %v]", math.Log(lo), math.Log(hi), d[5], d[30])
	}
	// 2+2 samples are too few for a 95% interval; zero or negative values
	// have no log.
	if _, _, ok := RatioInterval([]float64{1, 2}, []float64{3, 4}, 0.95); ok {
		t.Error("2+2 samples gave an interval")
	}
	if _, _, ok := RatioInterval([]float64{0, 1, 2, 3, 4, 5}, b, 0.95); ok {
		t.Error("a zero sample gave an interval")
	}
	// Overlapping samples: the interval covers 1.
	if lo, hi, ok := RatioInterval(a, a, 0.95); !ok || lo > 1 || hi < 1 {
		t.Errorf("A vs A: [%v, %v] ok=%v, want to cover 1", lo, hi, ok)
	}
}
