package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	mstats "github.com/aclements/go-moremath/stats"
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

// ratioIntervalBrute is the definition: every pairwise difference listed
// and sorted.
func ratioIntervalBrute(a, b []float64, confidence float64) (lo, hi float64, ok bool) {
	n1, n2 := len(a), len(b)
	var diffs []float64
	for _, x := range a {
		for _, y := range b {
			if !(x > 0) || !(y > 0) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				return 0, 0, false
			}
			diffs = append(diffs, math.Log(y)-math.Log(x))
		}
	}
	sort.Float64s(diffs)
	c := ratioCutoff(n1, n2, confidence) // checked against a linear scan in TestRatioCutoff
	if c == 0 || c > len(diffs)-c+1 {
		return 0, 0, false
	}
	return math.Exp(diffs[c-1]), math.Exp(diffs[len(diffs)-c]), true
}

func ratioCutoffBrute(n1, n2 int, confidence float64) int {
	d := mstats.UDist{N1: n1, N2: n2}
	c := 0
	for c < n1*n2 && d.CDF(float64(c)) <= (1-confidence)/2 {
		c++
	}
	return c
}

// TestRatioIntervalMatchesBrute: on random inputs, with ties and without,
// small (exact cut-off, candidates sorted at once) and larger (selection
// by pivots), the fast interval is bit for bit the brute-force one.
func TestRatioIntervalMatchesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n1, n2 := 1+rng.IntN(50), 1+rng.IntN(50)
		if trial%3 == 0 {
			n1, n2 = 30+rng.IntN(21), 30+rng.IntN(21) // selection path
		}
		gen := func(n int, scale float64) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				if trial%4 == 1 {
					xs[i] = scale * float64(1+rng.IntN(5)) // many ties
				} else {
					xs[i] = scale * math.Exp(rng.NormFloat64()*0.3)
				}
			}
			return xs
		}
		a, b := gen(n1, 1), gen(n2, 0.5+rng.Float64())
		conf := []float64{0.95, 0.9, 0.99}[trial%3]
		lo, hi, ok := RatioInterval(a, b, conf)
		wlo, whi, wok := ratioIntervalBrute(a, b, conf)
		if lo != wlo || hi != whi || ok != wok {
			t.Fatalf("trial %d (%d+%d, %v): fast [%v, %v] %v, brute [%v, %v] %v", trial, n1, n2, conf, lo, hi, ok, wlo, whi, wok)
		}
	}
}

// TestKthDiff checks the selection against a full sort for every rank.
func TestKthDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 45)
	y := make([]float64, 38)
	for i := range x {
		x[i] = float64(rng.IntN(20))
	}
	for i := range y {
		y[i] = float64(rng.IntN(20)) + rng.Float64()*float64(i%2)
	}
	sort.Float64s(x)
	sort.Float64s(y)
	var all []float64
	for _, a := range x {
		for _, b := range y {
			all = append(all, b-a)
		}
	}
	sort.Float64s(all)
	for k := 1; k <= len(all); k += 7 {
		if got := kthDiff(x, y, k); got != all[k-1] {
			t.Fatalf("kthDiff(k=%d) = %v, want %v", k, got, all[k-1])
		}
	}
}

// TestRatioCutoffNormal: at the exact limit the normal approximation is
// within two ranks of the exact cut-off, and past it the interval still
// comes out (here for 10^5 samples a side, in well under a second).
func TestRatioCutoffNormal(t *testing.T) {
	for _, n := range [][2]int{{50, 50}, {40, 50}, {30, 45}, {50, 20}} {
		for _, conf := range []float64{0.9, 0.95, 0.99} {
			exact := ratioCutoff(n[0], n[1], conf)
			normal := ratioCutoffNormal(n[0], n[1], (1-conf)/2)
			// Within two ranks (of 300 to 900).
			if d := math.Abs(float64(exact - normal)); d > 2 {
				t.Errorf("%v at %v: exact cut-off %d, normal %d", n, conf, exact, normal)
			}
		}
	}
	// At the limit, two CDF values of go-moremath's UDist bracket the cut-off.
	d := mstats.UDist{N1: 50, N2: 47}
	if c := ratioCutoff(50, 47, 0.95); d.CDF(float64(c-1)) > 0.025 || d.CDF(float64(c)) <= 0.025 {
		t.Errorf("50+47: cut-off %d: CDF(c-1) = %v, CDF(c) = %v", c, d.CDF(float64(c-1)), d.CDF(float64(c)))
	}
	for _, n := range [][2]int{{6, 6}, {4, 9}, {12, 10}, {25, 25}} {
		if got, want := ratioCutoff(n[0], n[1], 0.95), ratioCutoffBrute(n[0], n[1], 0.95); got != want {
			t.Errorf("%v: binary search %d, linear scan %d", n, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	n := 100000
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i] = math.Exp(rng.NormFloat64() * 0.1)
		b[i] = 0.8 * math.Exp(rng.NormFloat64()*0.1)
	}
	lo, hi, ok := RatioInterval(a, b, 0.95)
	if !ok || math.Abs(lo-0.8) > 0.005 || math.Abs(hi-0.8) > 0.005 || hi <= lo {
		t.Errorf("10^5 a side, B = 0.8·A: [%v, %v] %v", lo, hi, ok)
	}
}

func BenchmarkRatioInterval(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		rng := rand.New(rand.NewPCG(7, 8))
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i] = math.Exp(rng.NormFloat64() * 0.1)
			ys[i] = 0.9 * math.Exp(rng.NormFloat64()*0.1)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				RatioInterval(xs, ys, 0.95)
			}
		})
	}
}
