package stats

import (
	"math"
	"testing"
)

// TestBootstrapMedians: the center is f of the medians; the interval holds
// it, is the same on every call (seeded), and narrows to the value when
// every sample is constant; a group of one value gives no interval.
func TestBootstrapMedians(t *testing.T) {
	a := []float64{10, 11, 9, 10.5, 9.5, 10, 12}
	b := []float64{2, 2.2, 1.8, 2.1, 1.9, 2}
	diff := func(m []float64) float64 { return m[0] - m[1] }
	c, lo, hi, ok := BootstrapMedians([][]float64{a, b}, diff)
	if !ok || c != 8 || !(lo <= c && c <= hi) || lo == hi {
		t.Fatalf("center %v [%v, %v] ok %v, want 8 inside a non-empty interval", c, lo, hi, ok)
	}
	c2, lo2, hi2, _ := BootstrapMedians([][]float64{a, b}, diff)
	if c2 != c || lo2 != lo || hi2 != hi {
		t.Fatalf("not reproducible: %v [%v, %v], then %v [%v, %v]", c, lo, hi, c2, lo2, hi2)
	}
	c, lo, hi, ok = BootstrapMedians([][]float64{{3, 3, 3}, {1, 1}}, diff)
	if !ok || c != 2 || lo != 2 || hi != 2 {
		t.Fatalf("constant samples: %v [%v, %v] ok %v, want 2 [2, 2]", c, lo, hi, ok)
	}
	if _, lo, _, ok = BootstrapMedians([][]float64{a, {1}}, diff); ok || !math.IsNaN(lo) {
		t.Fatalf("a group of one value: ok %v, lo %v; want no interval", ok, lo)
	}
}
