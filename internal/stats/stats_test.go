package stats

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// aeq compares to 10 significant digits.
var aeq = cmp.Options{cmpopts.EquateApprox(1e-10, 0), cmpopts.IgnoreFields(Warning{}, "Cause", "Fix")}

// wm is a warning as tests spell it: kind and whole message.
func wm(k Kind, msg string) Warning { return Warning{Kind: k, Message: msg} }

func TestSummarize(t *testing.T) {
	inf := math.Inf(1)
	check := func(name string, in []float64, want Summary) {
		t.Helper()
		orig := append([]float64(nil), in...)
		got := Summarize(in)
		if diff := cmp.Diff(want, got, aeq); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		if !cmp.Equal(orig, in) {
			t.Errorf("%s: Summarize reordered its input: %v", name, in)
		}
	}
	// n=10: the interval is [x(2), x(9)], coverage 1 − 2·P(Bin(10,½) ≤ 1)
	// = 1 − 22/1024.
	check("ten", []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, Summary{
		Center: 5.5, Lo: 2, Hi: 9, Confidence: 1 - 22.0/1024, HasCI: true, N: 10, Min: 1, Max: 10,
		Warnings: []Warning{wm(KindHighVariance, "high variance: the 95% interval is wider than ±5% of the median; quiet the machine (no other load, fixed CPU frequency) or run more repetitions")},
	})
	// n=6 is the smallest with an interval: [x(1), x(6)], 1 − 2/64.
	check("six tight", []float64{100, 101, 99, 100.5, 99.5, 100.2}, Summary{
		Center: 100.1, Lo: 99, Hi: 101, Confidence: 1 - 2.0/64, HasCI: true, N: 6, Min: 99, Max: 101,
	})
	// n=5: the only interval with 95% coverage is (−∞, x(5)], 1 − 1/32.
	check("five", []float64{5, 4, 3, 2, 1}, Summary{
		Center: 3, Lo: -inf, Hi: 5, Confidence: 1 - 1.0/32, N: 5, Min: 1, Max: 5,
		Warnings: []Warning{
			wm(KindFewSamplesCI, "need >= 6 samples for confidence interval at level 0.95 (have 5); run more repetitions (--runs)"),
			wm(KindHighVariance, "high variance: the samples spread more than ±5% of the median; quiet the machine (no other load, fixed CPU frequency) or run more repetitions"),
		},
	})
	check("one", []float64{7}, Summary{
		Center: 7, Lo: -inf, Hi: inf, Confidence: 1, N: 1, Min: 7, Max: 7,
		Warnings: []Warning{wm(KindFewSamplesCI, "need >= 6 samples for confidence interval at level 0.95 (have 1); run more repetitions (--runs)")},
	})
	got := Summarize(nil)
	if !math.IsNaN(got.Center) || got.HasCI || got.N != 0 || len(got.Warnings) != 1 || got.Warnings[0].Kind != KindNoSamples {
		t.Errorf("empty: %+v", got)
	}
}

func TestSummaryJSON(t *testing.T) {
	b, err := json.Marshal(Summarize([]float64{3, 1, 2}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"median":2,"median_interval":null,"confidence":null,"n":3,"min":1,"max":3,"warnings":[{"kind":"few-samples-ci","message":"need \u003e= 6 samples for confidence interval at level 0.95 (have 3); run more repetitions (--runs)"},{"kind":"high-variance","message":"high variance: the samples spread more than ±5% of the median; quiet the machine (no other load, fixed CPU frequency) or run more repetitions"}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(Summarize([]float64{1, 2, 3, 4, 5, 6}))
	if want := `{"median":3.5,"median_interval":{"lo":1,"hi":6},"confidence":0.96875,"n":6,"min":1,"max":6,"warnings":[{"kind":"high-variance","message":"high variance: the 95% interval is wider than ±5% of the median; quiet the machine (no other load, fixed CPU frequency) or run more repetitions"}]}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestCompare(t *testing.T) {
	check := func(name string, a, b []float64, alpha float64, want Comparison) {
		t.Helper()
		oa, ob := append([]float64(nil), a...), append([]float64(nil), b...)
		got := Compare(a, b, alpha)
		if diff := cmp.Diff(want, got, aeq); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		if !cmp.Equal(oa, a) || !cmp.Equal(ob, b) {
			t.Errorf("%s: Compare reordered its input", name)
		}
	}
	// Fully separated 4+4: 2 of C(8,4)=70 orderings are as extreme.
	check("separated 4+4", []float64{4, 2, 3, 1}, []float64{8, 5, 7, 6}, 0.05,
		Comparison{P: 2.0 / 70, N1: 4, N2: 4, Alpha: 0.05, Significant: true})
	// One crossing (U=1): 4 of 70 orderings are as extreme, p=0.0571.
	check("one crossing", []float64{1, 2, 3, 5}, []float64{4, 6, 7, 8}, 0.05,
		Comparison{P: 4.0 / 70, N1: 4, N2: 4, Alpha: 0.05})
	check("one crossing, alpha 0.1", []float64{1, 2, 3, 5}, []float64{4, 6, 7, 8}, 0.1,
		Comparison{P: 4.0 / 70, N1: 4, N2: 4, Alpha: 0.1, Significant: true})
	// 5+5 separated: 2/252 = 0.0079, significant even at 0.01.
	check("separated 5+5 alpha 0.01", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.01,
		Comparison{P: 2.0 / 252, N1: 5, N2: 5, Alpha: 0.01, Significant: true})
	// 3+3 can never reach 0.05: the smallest p is 2/20.
	check("three", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.05,
		Comparison{P: 0.1, N1: 3, N2: 3, Alpha: 0.05, Warnings: []Warning{wm(KindFewSamplesTest, "need >= 4 samples to detect a difference at alpha level 0.05 (have n=3); with fewer the U test cannot reach significance however large the change; run more repetitions (--runs)")}})
	check("unequal", []float64{1, 2}, []float64{4, 5, 6}, 0.05,
		Comparison{P: 0.2, N1: 2, N2: 3, Alpha: 0.05, Warnings: []Warning{wm(KindFewSamplesTest, "need >= 4 samples to detect a difference at alpha level 0.05 (have n=2+3); with fewer the U test cannot reach significance however large the change; run more repetitions (--runs)")}})
	check("all equal", []float64{5, 5, 5, 5}, []float64{5, 5, 5, 5}, 0.05,
		Comparison{P: 1, N1: 4, N2: 4, Alpha: 0.05, Warnings: []Warning{wm(KindTestFailed, "U test not possible: all samples are equal")}})
	check("empty side", nil, []float64{1}, 0.05,
		Comparison{P: 1, N1: 0, N2: 1, Alpha: 0.05, Warnings: []Warning{wm(KindNoSamples, "a side has no samples; nothing to test")}})
}

func TestDeltaAndFormat(t *testing.T) {
	sig := Comparison{P: 0.01, Alpha: 0.05, Significant: true}
	if got := sig.Delta(5353135, 14798678); got != "+176.45%" {
		t.Errorf("Delta = %q", got)
	}
	if got := sig.Delta(1.682, 0.997); got != "−40.73%" {
		t.Errorf("Delta = %q", got)
	}
	if got := (Comparison{P: 0.2, Alpha: 0.05}).Delta(1, 2); got != "~" {
		t.Errorf("not significant Delta = %q", got)
	}
	if got := FormatPct(math.Inf(1)); got != "?" {
		t.Errorf("FormatPct(inf) = %q", got)
	}
	if got := (Comparison{N1: 4, N2: 5}).N(); got != "n=4+5" {
		t.Errorf("N = %q", got)
	}
	if got := Speedup(0.1868, 0.0676, false); math.Abs(got-2.763313609) > 1e-9 {
		t.Errorf("Speedup lower = %v", got)
	}
	if got := Speedup(123159, 217736, true); math.Abs(got-1.7679260143) > 1e-9 {
		t.Errorf("Speedup higher = %v", got)
	}
	if got := ChangePct(4, 4); got != 0 {
		t.Errorf("ChangePct equal = %v", got)
	}
}

func TestGeoMean(t *testing.T) {
	if g, ok := GeoMean([]float64{2, 8}); !ok || math.Abs(g-4) > 1e-12 {
		t.Errorf("GeoMean(2,8) = %v, %v", g, ok)
	}
	if g, ok := GeoMean([]float64{1.5, 1.5, 1.5}); !ok || math.Abs(g-1.5) > 1e-12 {
		t.Errorf("GeoMean(1.5×3) = %v, %v", g, ok)
	}
	if _, ok := GeoMean([]float64{2, -1}); ok {
		t.Error("GeoMean with a negative ratio is ok")
	}
	if _, ok := GeoMean(nil); ok {
		t.Error("GeoMean of nothing is ok")
	}
}

func TestCheckAlpha(t *testing.T) {
	for _, a := range []float64{0.05, 0.001, 0.5} {
		if err := CheckAlpha(a); err != nil {
			t.Errorf("CheckAlpha(%v) = %v", a, err)
		}
	}
	for _, a := range []float64{0, 1, -0.1, 2, math.NaN()} {
		if err := CheckAlpha(a); err == nil {
			t.Errorf("CheckAlpha(%v) accepted", a)
		}
	}
}

// TestCompareTies: with ties the p-value is the exact permutation one
// (checked by brute-force enumeration of every assignment), not the p = 0
// that go-moremath's tied distribution gives at the extremes.
func TestCompareTies(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		p    float64
	}{
		{[]float64{0.2, 0.204}, []float64{0.08, 0.084, 0.076, 0.08, 0.088, 0.08}, 1.0 / 28},
		{[]float64{1, 1}, []float64{2, 2}, 1.0 / 3},
		{[]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 9}, 4.0 / 252},
		{[]float64{1, 2, 2, 3, 4, 5}, []float64{2, 4, 6, 6, 7, 8}, 44.0 / 924},
	} {
		got := Compare(c.a, c.b, 0.05)
		if math.Abs(got.P-c.p) > 1e-12 {
			t.Errorf("Compare(%v, %v).P = %v, want %v", c.a, c.b, got.P, c.p)
		}
		if got.Significant != (c.p <= 0.05) {
			t.Errorf("Compare(%v, %v).Significant = %v", c.a, c.b, got.Significant)
		}
	}
	got := Compare([]float64{1, 1}, []float64{2, 2}, 0.05)
	want := Comparison{P: 1.0 / 3, N1: 2, N2: 2, Alpha: 0.05, Warnings: []Warning{wm(KindFewSamplesTest, "need >= 4 samples to detect a difference at alpha level 0.05 (have n=2); with fewer the U test cannot reach significance however large the change; run more repetitions (--runs)")}}
	if diff := cmp.Diff(want, got, aeq); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestExactTiesPMatchesNoTies: without ties, our permutation p equals
// benchmath's exact p.
func TestExactTiesPMatchesNoTies(t *testing.T) {
	for _, c := range [][2][]float64{
		{{1, 2, 3, 4}, {5, 6, 7, 8}},
		{{1, 2, 3, 5}, {4, 6, 7, 8}},
		{{1, 3, 5, 7, 9, 11}, {2, 4, 6, 8, 10, 12, 14}},
		{{10, 2, 33, 4, 15}, {6, 17, 8, 19}},
	} {
		want := Compare(c[0], c[1], 0.05).P // no ties: benchmath's own value
		if got := exactTiesP(c[0], c[1]); math.Abs(got-want) > 1e-12 {
			t.Errorf("exactTiesP(%v, %v) = %v, benchmath %v", c[0], c[1], got, want)
		}
	}
}

func TestUTestMinN(t *testing.T) {
	for alpha, want := range map[float64]int{0.05: 4, 0.01: 5, 0.1: 3, 0.5: 2, 1e-9: 17} {
		if got := uTestMinN(alpha); got != want {
			t.Errorf("uTestMinN(%v) = %d, want %d", alpha, got, want)
		}
	}
}

func TestHolm(t *testing.T) {
	// Sorted 0.01, 0.02, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.04, 0.06, 0.06
	// (monotone), 0.06.
	got := Holm([]float64{0.03, 0.01, 0.04, 0.02})
	want := []float64{0.06, 0.04, 0.06, 0.06}
	if diff := cmp.Diff(want, got, aeq); diff != "" {
		t.Errorf("Holm (-want +got):\n%s", diff)
	}
	// One test: unchanged; capped at 1.
	if got := Holm([]float64{0.041}); got[0] != 0.041 {
		t.Errorf("Holm of one = %v", got)
	}
	if got := Holm([]float64{0.6, 0.7}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm capped = %v", got)
	}
	if got := Holm(nil); len(got) != 0 {
		t.Errorf("Holm(nil) = %v", got)
	}
}
