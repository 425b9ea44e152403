package stats

import (
	"math"
	"testing"
)

// TestEquivalenceVerdict: within when the (1−2α) interval lies inside
// [1/(1+M), 1+M], beyond only when significant and the (1−α) interval
// lies outside, inconclusive otherwise and without an interval.
func TestEquivalenceVerdict(t *testing.T) {
	iv := func(lo, hi float64) *Interval { return &Interval{Lo: lo, Hi: hi} }
	for _, tc := range []struct {
		name     string
		tost, ci *Interval
		sig      bool
		want     string
	}{
		{"inside", iv(0.99, 1.015), iv(0.985, 1.02), false, EquivWithin},
		{"inside, significant", iv(1.005, 1.015), iv(1.004, 1.016), true, EquivWithin},
		{"lower edge is 1/1.02, not 0.98", iv(0.9802, 1.0), iv(0.97, 1.01), false, EquivInconclusive},
		{"just inside the lower edge", iv(0.9805, 1.0), iv(0.97, 1.01), false, EquivWithin},
		{"upper edge", iv(1.0, 1.02), iv(0.99, 1.03), false, EquivInconclusive},
		{"beyond", iv(1.05, 1.07), iv(1.045, 1.075), true, EquivBeyond},
		{"beyond, faster", iv(0.9, 0.95), iv(0.89, 0.96), true, EquivBeyond},
		{"outside but not significant", iv(1.05, 1.07), iv(1.045, 1.075), false, EquivInconclusive},
		{"significant, straddles the edge", iv(1.01, 1.03), iv(1.005, 1.035), true, EquivInconclusive},
		{"no intervals", nil, nil, true, EquivInconclusive},
	} {
		if got := EquivalenceVerdict(tc.tost, tc.ci, tc.sig, 2); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestDetectablePct: 80% power at α = 0.05 is (1.96 + 0.84)/1.96 ≈ 1.43
// times the 95% interval's half-width on the log scale; a smaller α asks
// for more; no interval, no figure.
func TestDetectablePct(t *testing.T) {
	ci := Interval{Lo: math.Exp(-0.01), Hi: math.Exp(0.01)}
	d := DetectablePct(ci, 0.95, 0.05)
	want := (math.Exp(0.01*(1.959964+0.841621)/1.959964) - 1) * 100
	if math.Abs(d-want) > 1e-4 {
		t.Errorf("DetectablePct = %v, want %v", d, want)
	}
	if d2 := DetectablePct(ci, 0.95, 0.025); !(d2 > d) {
		t.Errorf("at α/2: %v, want more than %v", d2, d)
	}
	for _, bad := range []Interval{{0, 1}, {1.1, 1.0}, {1, math.Inf(1)}} {
		if v := DetectablePct(bad, 0.95, 0.05); !math.IsNaN(v) {
			t.Errorf("DetectablePct(%v) = %v, want NaN", bad, v)
		}
	}
}

func TestCheckMargin(t *testing.T) {
	for _, m := range []float64{0.1, 2, 100} {
		if err := CheckMargin(m); err != nil {
			t.Errorf("%v: %v", m, err)
		}
	}
	for _, m := range []float64{0, -1, 101, math.NaN(), math.Inf(1)} {
		if err := CheckMargin(m); err == nil {
			t.Errorf("%v accepted", m)
		}
	}
}

// TestCountedMedian: the medians read off the counts of
// the drawn ranks are the medians of the drawn values, with ties.
func TestCountedMedian(t *testing.T) {
	g := []float64{3, 1, 2, 2, 5, 4}
	sorted, rank := rankOf(g)
	counts := make([]int, len(g))
	drawn := []int{0, 0, 4, 2, 3, 1} // indices into g
	var vals []float64
	for _, i := range drawn {
		counts[rank[i]]++
		vals = append(vals, g[i])
	}
	if got, want := countedMedian(sorted, counts), Summarize(vals).Center; got != want {
		t.Errorf("countedMedian = %v, want %v (the median of %v)", got, want, vals)
	}
}
