package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// simulated is one simulated comparison: n repetitions a side of each
// workload, lognormal with the given spread (σ of the log), B's median
// the true ratio times A's.
type simulated struct {
	n      int
	spread float64
	ratios []float64 // true B/A of each workload's median
}

// sides draws the two run documents of seed, writes them as JSON and
// reads them back as an import does (run.Validate), and returns them as
// the sides of a comparison: A with mitigations on, B off.
func (s simulated) sides(t *testing.T, seed uint64) []Side {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 47))
	doc := func(id, label string, scale func(w int) float64, env map[string]any) *run.Run {
		var results []run.Result
		for w := range s.ratios {
			xs := make([]float64, s.n)
			for i := range xs {
				xs[i] = 10 * float64(w+1) * scale(w) * math.Exp(s.spread*rng.NormFloat64())
			}
			results = append(results, res(fmt.Sprintf("wl-%d", w), map[string]any{"loops": float64(1000)}, lower("usecs_per_op", xs...)))
		}
		r := mkRun(id, label, results...)
		r.Finished, r.Repetitions = r.Started.Add(time.Minute), s.n
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back run.Run
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("synthetic run %s: %v", id, err)
		}
		return &back
	}
	a := doc(fmt.Sprintf("a%d", seed), "on", func(int) float64 { return 1 }, envOn())
	b := doc(fmt.Sprintf("b%d", seed), "off", func(w int) float64 { return s.ratios[w] }, envOff())
	return []Side{side("on", []*run.Run{a}, envOn()), side("off", []*run.Run{b}, envOff())}
}

// trueSpeedup is the geometric mean of the true speedups of B (lower is
// better: A/B).
func (s simulated) trueSpeedup() float64 {
	l := 0.0
	for _, r := range s.ratios {
		l -= math.Log(r)
	}
	return math.Exp(l / float64(len(s.ratios)))
}

// rates runs seeds comparisons of s (seeds from first on) and counts the
// verdicts of every workload's primary metric, the significant ones, how
// often the conclusion's speedup interval holds the true geometric mean,
// and the median detectable change.
type rates struct {
	metrics, within, beyond, significant int
	runs, intervals, covered             int
	detectable                           []float64
}

func (s simulated) rates(t *testing.T, first uint64, seeds int) rates {
	t.Helper()
	var r rates
	truth := s.trueSpeedup()
	for seed := first; seed < first+uint64(seeds); seed++ {
		c, err := CompareSides(s.sides(t, seed), Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep := c.Comparisons[0]
		r.runs++
		if iv := rep.Conclusion.SpeedupInterval; iv != nil {
			r.intervals++
			if iv.Lo <= truth && truth <= iv.Hi {
				r.covered++
			}
		}
		for _, w := range rep.Workloads {
			m := w.Metrics[0]
			if m.Equivalence == nil || m.Equivalence.MarginPct != stats.DefaultMarginPct {
				t.Fatalf("seed %d %s: equivalence %+v, want one against ±%v%%", seed, w.ID, m.Equivalence, stats.DefaultMarginPct)
			}
			r.metrics++
			switch m.Equivalence.Verdict {
			case stats.EquivWithin:
				r.within++
			case stats.EquivBeyond:
				r.beyond++
			}
			if m.Significant {
				r.significant++
			}
			if m.DetectablePct != nil {
				r.detectable = append(r.detectable, *m.DetectablePct)
			}
		}
	}
	return r
}

func frac(k, n int) float64 { return float64(k) / float64(n) }

func median(xs []float64) float64 { return stats.Summarize(xs).Center }

// row logs the rates of one setting as a row of the table of
// docs/statistics.md (go test -run TestEquivalenceErrorRates -v).
func (s simulated) row(t *testing.T, r rates) {
	t.Helper()
	det := "–"
	if len(r.detectable) > 0 {
		det = fmt.Sprintf("%.1f%%", median(r.detectable))
	}
	t.Logf("| %s | %d | %.0f%% | %d | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %s | %.0f%% |", s.change(), s.n, 100*s.spread, r.metrics,
		100*frac(r.within, r.metrics), 100*frac(r.beyond, r.metrics), 100*frac(r.metrics-r.within-r.beyond, r.metrics),
		100*frac(r.significant, r.metrics), det, 100*frac(r.covered, r.runs))
}

// change is the true changes of the workloads, in percent.
func (s simulated) change() string {
	seen := map[string]bool{}
	var out []string
	for _, r := range s.ratios {
		c := fmt.Sprintf("%.1f%%", 100*(math.Max(r, 1/r)-1))
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return "±" + strings.Join(out, ", ±")
}

// TestEquivalenceErrorRates is the simulation docs/statistics.md quotes:
// seeded synthetic run documents with known true ratios and spreads,
// compared by CompareSides as the commands compare stored runs. "Within
// ±2%" goes to at most 5% of the pairs whose true change is 3% or more
// (either way), and to at least 80% of the pairs with no true change at
// n = 20 and a 1% spread; "beyond" never where nothing changed; a change
// of detectable_pct is found significant about 80% of the time (the change
// the run could see, neither less nor more); the conclusion's 95% speedup
// interval holds the true geometric mean in at least 90% of the seeds.
// The seeds (from 1000) are not those the rule was tried on while it was
// written.
func TestEquivalenceErrorRates(t *testing.T) {
	t.Logf("| true change | n | spread | pairs | within ±2%% | beyond ±2%% | inconclusive | significant | median detectable | speedup interval covers |")
	t.Logf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	seed := uint64(1000)
	measure := func(s simulated, seeds int) rates {
		r := s.rates(t, seed, seeds)
		seed += uint64(seeds)
		s.row(t, r)
		if f := frac(r.covered, r.runs); r.intervals != r.runs || f < 0.90 {
			t.Errorf("%+v: speedup interval on %d of %d runs, holding the true geomean in %.1f%%, want all and ≥ 90%%", s, r.intervals, r.runs, 100*f)
		}
		if len(r.detectable) != r.metrics {
			t.Errorf("%+v: detectable_pct on %d of %d metrics", s, len(r.detectable), r.metrics)
		}
		return r
	}
	// No change at n = 20 and a 1% spread: within.
	null := simulated{n: 20, spread: 0.01, ratios: []float64{1, 1}}
	r := measure(null, 300)
	if f := frac(r.within, r.metrics); f < 0.80 {
		t.Errorf("no true change, n=20, 1%% spread: within ±2%% in %.1f%% of %d pairs, want ≥ 80%%", 100*f, r.metrics)
	}
	d := median(r.detectable)
	for _, s := range []simulated{
		{n: 6, spread: 0.01, ratios: []float64{1, 1}},
		{n: 20, spread: 0.03, ratios: []float64{1, 1}},
		{n: 20, spread: 0.01, ratios: []float64{1.01, 1 / 1.01}},
		{n: 20, spread: 0.01, ratios: []float64{1.02, 1 / 1.02}},
	} {
		if r := measure(s, 50); s.ratios[0] == 1 && r.beyond > 0 {
			t.Errorf("no true change, %+v: beyond ±2%% in %d of %d pairs", s, r.beyond, r.metrics)
		}
	}
	if r.beyond != 0 {
		t.Errorf("no true change: beyond ±2%% in %d pairs", r.beyond)
	}
	// A change of 3% or more, at spreads and sizes from tight to loose.
	var far rates
	for _, s := range []simulated{
		{n: 20, spread: 0.01, ratios: []float64{1.03, 1 / 1.03}},
		{n: 6, spread: 0.01, ratios: []float64{1.03, 1 / 1.03}},
		{n: 20, spread: 0.03, ratios: []float64{1.03, 1 / 1.03}},
		{n: 50, spread: 0.03, ratios: []float64{1.05, 1 / 1.05}},
	} {
		r := measure(s, 50)
		far.metrics, far.within = far.metrics+r.metrics, far.within+r.within
	}
	if f := frac(far.within, far.metrics); f > 0.05 {
		t.Errorf("true change ≥3%%: within ±2%% in %.1f%% of %d pairs, want ≤ 5%%", 100*f, far.metrics)
	}
	// A true change of detectable_pct is significant with about 80%
	// probability: neither an understatement nor a boast.
	at := simulated{n: 20, spread: 0.01, ratios: []float64{1 + d/100, 1 / (1 + d/100)}}
	p := measure(at, 100)
	if f := frac(p.significant, p.metrics); f < 0.70 || f > 0.92 {
		t.Errorf("true change of detectable_pct (%.2f%%): significant in %.1f%% of %d pairs, want about 80%%", d, 100*f, p.metrics)
	}
}
