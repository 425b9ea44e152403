// Package stats is sectax's thin layer over golang.org/x/perf/benchmath,
// following benchstat: the median with a distribution-free 95% confidence
// interval, the Mann-Whitney U test with α set explicitly, "~" when a
// change is not significant, a geometric mean of ratios, the interval of a
// ratio that goes with the U test (RatioInterval), Holm's correction for
// multiple testing (Holm), and caveats carried as data (Warnings, told
// apart by their Kind), never printed.
//
// Note: benchmath.NewSample sorts the slice it is given, so every function
// here copies its input; callers may keep their samples in run order.
// benchmath.AssumeNormal and AssumeExact leave Comparison.Alpha at zero, so
// this package uses AssumeNothing only and sets Alpha itself.
package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	mstats "github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every confidence interval.
const Confidence = 0.95

// DefaultAlpha is the significance level of the U test unless --alpha says
// otherwise.
const DefaultAlpha = 0.05

// HighVariance is the relative half-width (of the confidence interval, or
// of the range when there is no interval) above which a sample is flagged.
const HighVariance = 0.05

// Kind identifies a warning for machine readers and for code: reports
// and tests tell warnings apart by their Kind, never by their text. The
// values are stable (they are the "kind" of the JSON report).
type Kind string

// Warning kinds of the statistics; package compare adds the kinds of a
// comparison.
const (
	KindFewSamplesCI   Kind = "few-samples-ci"
	KindFewSamplesTest Kind = "few-samples-test"
	KindHighVariance   Kind = "high-variance"
	KindTestFailed     Kind = "test-failed"
	KindNoSamples      Kind = "no-samples"
)

// FixMoreRepetitions is the fix of a warning about too few samples when a
// sample is one repetition.
const FixMoreRepetitions = "run more repetitions (--runs)"

// Warning is a caveat: a stable kind and a message that names the cause
// and the fix. Cause and Fix are the two parts of Message, kept so that a
// caller can give another fix (WithFix) without editing text.
type Warning struct {
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
	Cause   string `json:"-"`
	Fix     string `json:"-"`
}

// NewWarning returns a warning whose message is the cause, then the fix.
func NewWarning(kind Kind, cause, fix string) Warning {
	w := Warning{Kind: kind, Cause: cause, Fix: fix}
	w.Message = cause
	if fix != "" {
		w.Message += "; " + fix
	}
	return w
}

// WithFix returns w with another fix (a warning without a separate fix is
// returned as it is).
func (w Warning) WithFix(fix string) Warning {
	if w.Fix == "" {
		return w
	}
	return NewWarning(w.Kind, w.Cause, fix)
}

func (w Warning) String() string { return w.Message }

// CheckAlpha refuses a significance level outside (0, 1).
func CheckAlpha(alpha float64) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("alpha %v is out of range: it must be between 0 and 1 (exclusive), typically 0.05", alpha)
	}
	return nil
}

// Interval is a confidence interval [Lo, Hi] in the unit of the quantity
// it bounds. Its JSON, {"lo": x, "hi": y}, is the one spelling of an
// interval in every document sectax writes: under a key that names the
// quantity and so the unit (ratio_interval: a ratio B/A;
// change_pct_interval, tax_pct_interval, median_pct_interval: percent;
// median_interval: the metric's unit), null when there is none.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Summary is the median of a sample with its confidence interval.
type Summary struct {
	// Center is the median.
	Center float64
	// Lo and Hi bound the confidence interval; both are infinite when the
	// sample is too small for one (see HasCI).
	Lo, Hi float64
	// Confidence is the actual level of [Lo, Hi], at least Confidence.
	Confidence float64
	// HasCI is false when the sample is too small for an interval.
	HasCI bool
	// N is the number of values; Min and Max their range.
	N        int
	Min, Max float64
	Warnings []Warning
}

// RelSpread is the relative half-width used for the high-variance check:
// of the interval when there is one, else of the range.
func (s Summary) RelSpread() float64 {
	if s.Center == 0 || s.N < 2 {
		return 0
	}
	lo, hi := s.Lo, s.Hi
	if !s.HasCI {
		lo, hi = s.Min, s.Max
	}
	return math.Max(hi/s.Center-1, 1-lo/s.Center) * math.Copysign(1, s.Center)
}

// summaryJSON is Summary with the interval of the median as null when
// there is none (JSON has no infinities).
type summaryJSON struct {
	Median         float64   `json:"median"`
	MedianInterval *Interval `json:"median_interval"`
	Confidence     *float64  `json:"confidence"`
	N              int       `json:"n"`
	Min            float64   `json:"min"`
	Max            float64   `json:"max"`
	Warnings       []Warning `json:"warnings,omitempty"`
}

// MarshalJSON renders the summary with median_interval (and its
// confidence) null when there is no interval.
func (s Summary) MarshalJSON() ([]byte, error) {
	j := summaryJSON{Median: s.Center, N: s.N, Min: s.Min, Max: s.Max, Warnings: s.Warnings}
	if s.HasCI {
		c := s.Confidence
		j.MedianInterval, j.Confidence = &Interval{Lo: s.Lo, Hi: s.Hi}, &c
	}
	return json.Marshal(j)
}

// Summarize returns the median of values with its 95% confidence interval
// (assume nothing: order statistics). values is not modified.
func Summarize(values []float64) Summary {
	if len(values) == 0 {
		return Summary{Center: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1),
			Warnings: []Warning{NewWarning(KindNoSamples, "no samples", "")}}
	}
	smp := benchmath.NewSample(append([]float64(nil), values...), &benchmath.DefaultThresholds)
	bs := benchmath.AssumeNothing.Summary(smp, Confidence)
	s := Summary{
		Center: bs.Center, Lo: bs.Lo, Hi: bs.Hi, Confidence: bs.Confidence,
		HasCI: !math.IsInf(bs.Lo, 0) && !math.IsInf(bs.Hi, 0),
		N:     len(values), Min: smp.Values[0], Max: smp.Values[len(smp.Values)-1],
	}
	for _, w := range bs.Warnings {
		msg := w.Error()
		if strings.HasPrefix(msg, "need ") {
			s.Warnings = append(s.Warnings, NewWarning(KindFewSamplesCI, msg+" (have "+fmt.Sprint(s.N)+")", FixMoreRepetitions))
		} else {
			s.Warnings = append(s.Warnings, NewWarning(KindFewSamplesCI, msg, ""))
		}
	}
	if rel := s.RelSpread(); rel > HighVariance {
		// The message names the threshold, not the value (the report shows
		// ±x% beside the median), so that reports can group it.
		what := "the 95% interval is wider than"
		if !s.HasCI {
			what = "the samples spread more than"
		}
		s.Warnings = append(s.Warnings, NewWarning(KindHighVariance, fmt.Sprintf(
			"high variance: %s ±%.0f%% of the median", what, 100*HighVariance),
			"quiet the machine (no other load, fixed CPU frequency) or run more repetitions"))
	}
	return s
}

// Comparison is the Mann-Whitney U test of two samples.
type Comparison struct {
	// P is the two-sided p-value; 1 when the test could not run.
	P float64 `json:"p"`
	// N1 and N2 are the sample sizes.
	N1 int `json:"n1"`
	N2 int `json:"n2"`
	// Alpha is the significance level the test was judged at.
	Alpha float64 `json:"alpha"`
	// Significant is P <= Alpha: the samples differ.
	Significant bool      `json:"significant"`
	Warnings    []Warning `json:"warnings,omitempty"`
}

// Compare tests whether a and b come from the same distribution, at
// significance level alpha (which must pass CheckAlpha). a and b are not
// modified.
func Compare(a, b []float64, alpha float64) Comparison {
	if len(a) == 0 || len(b) == 0 {
		return Comparison{P: 1, N1: len(a), N2: len(b), Alpha: alpha,
			Warnings: []Warning{NewWarning(KindNoSamples, "a side has no samples", "nothing to test")}}
	}
	th := benchmath.Thresholds{CompareAlpha: alpha}
	s1 := benchmath.NewSample(append([]float64(nil), a...), &th)
	s2 := benchmath.NewSample(append([]float64(nil), b...), &th)
	bc := benchmath.AssumeNothing.Compare(s1, s2)
	c := Comparison{P: bc.P, N1: bc.N1, N2: bc.N2, Alpha: alpha}
	equal := false
	for _, w := range bc.Warnings {
		msg := w.Error()
		if strings.HasPrefix(msg, "need ") {
			continue // recomputed below, against the corrected P
		}
		equal = true
		c.Warnings = append(c.Warnings, NewWarning(KindTestFailed, "U test not possible: "+msg, ""))
	}
	if !equal && len(a) <= tiesExactLimit && len(b) <= tiesExactLimit && hasTies(a, b) {
		c.P = exactTiesP(a, b) // see the note in utest.go
	}
	c.Significant = c.P <= alpha
	// Warn when the sizes cannot reach alpha however large the change (as
	// benchmath does, but against our P).
	if need := uTestMinN(alpha); !c.Significant && c.N1 < need && c.N2 < need {
		c.Warnings = append(c.Warnings, NewWarning(KindFewSamplesTest, fmt.Sprintf(
			"need >= %d samples to detect a difference at alpha level %v (have %s); with fewer the U test cannot reach significance however large the change",
			need, alpha, nString(c.N1, c.N2)), FixMoreRepetitions))
	}
	return c
}

func nString(n1, n2 int) string {
	if n1 == n2 {
		return fmt.Sprintf("n=%d", n1)
	}
	return fmt.Sprintf("n=%d+%d", n1, n2)
}

// N renders the sample sizes as benchstat does: "n=10" or "n=4+5".
func (c Comparison) N() string { return nString(c.N1, c.N2) }

// Delta is benchstat's verdict: "~" when not significant, else the signed
// change from old to new in percent ("+27.27%").
func (c Comparison) Delta(old, new float64) string {
	if !c.Significant {
		return "~"
	}
	return FormatPct(ChangePct(old, new))
}

// ChangePct is the change from a to b in percent: (b/a − 1)·100.
func ChangePct(a, b float64) float64 {
	if a == b {
		return 0
	}
	return (b/a - 1) * 100
}

// FormatPct renders a percentage with a sign and two decimals ("+176.45%",
// "−40.73%" with a true minus sign); "?" when it is not a number.
func FormatPct(pct float64) string {
	if math.IsNaN(pct) || math.IsInf(pct, 0) {
		return "?"
	}
	s := fmt.Sprintf("%+.2f%%", pct)
	return strings.Replace(s, "-", "−", 1)
}

// Speedup is how many times better b is than a in the metric's better
// direction: b/a when higher is better, a/b when lower is. Above 1 means b
// is better.
func Speedup(a, b float64, higherIsBetter bool) float64 {
	if higherIsBetter {
		return b / a
	}
	return a / b
}

// GeoMean is the geometric mean of ratios; ok is false when xs is empty or
// holds a ratio that is not positive.
func GeoMean(xs []float64) (g float64, ok bool) {
	g = mstats.GeoMean(xs)
	if math.IsNaN(g) {
		return 0, false
	}
	return g, true
}

// Holm returns the Holm–Bonferroni adjusted p-values of a family of
// hypotheses, in the order given: with the p-values sorted ascending,
// p(i) is adjusted to max over j ≤ i of min(1, (m−j+1)·p(j)). Calling a
// hypothesis significant when its adjusted p is at most α keeps the
// probability of any false "significant" in the family at most α, with no
// assumption on how the tests depend on each other.
func Holm(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return ps[idx[i]] < ps[idx[j]] })
	out := make([]float64, m)
	running := 0.0
	for rank, i := range idx {
		v := math.Min(1, float64(m-rank)*ps[i])
		running = math.Max(running, v)
		out[i] = running
	}
	return out
}
