package compare

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// Schema is the value of the "schema" field of a Report: one side against
// the baseline inside a sectax.compare/v3 document (ComparisonSchema), in
// that document's layout.
const Schema = ComparisonSchema

// ControlPrefix marks negative-control workloads: they should not move with
// the mitigations.
const ControlPrefix = "ctl-"

// IsControl reports whether workload is a negative control: it measures
// nothing a mitigation costs, so its change is never a tax or a saving
// (decide lists no saving of one).
func IsControl(workload string) bool { return strings.HasPrefix(workload, ControlPrefix) }

// Errors for comparisons that make no sense; the CLI exits 2 on them.
var (
	ErrSameRun         = exit.New(exit.Usage, "the two sides are the same run")
	ErrNothingInCommon = exit.New(exit.Usage, "the two sides have no workload in common")
)

// Options configure CompareSides.
type Options struct {
	// Alpha is the significance level of the U test (stats.DefaultAlpha
	// when zero).
	Alpha float64
	// MarginPct is the equivalence margin M in percent
	// (stats.DefaultMarginPct when zero): each metric is judged within
	// ±M%, beyond it, or inconclusive (Metric.Equivalence).
	MarginPct float64
}

// Verdicts of a metric.
const (
	VerdictBetter = "better" // B is significantly better than A
	VerdictWorse  = "worse"  // B is significantly worse than A
	VerdictSame   = "~"      // no significant difference
	// VerdictDiffers: B differs significantly from A although both sides
	// share their mitigation settings: a difference between the runs
	// (drift, load, another change), never a better or worse mitigation.
	VerdictDiffers  = "differs"
	VerdictUntested = "untested" // published single figures: no test possible
)

// Multiplicity is how the family of primary metrics is corrected for
// multiple testing: Holm–Bonferroni over every side's primary metrics
// against the baseline, one family per Comparison.
const Multiplicity = "holm"

// Report is the whole comparison: every number, verdict, finding and
// warning a report shows, computed once here; the formats of package
// report only lay it out.
type Report struct {
	Schema string `json:"schema"`
	// Conclusion is the comparison in one line (the first line of every
	// format).
	Conclusion Conclusion `json:"conclusion"`
	Alpha      float64    `json:"alpha"`
	Confidence float64    `json:"confidence"`
	// MarginPct is the equivalence margin M in percent every metric's
	// Equivalence is judged against.
	MarginPct float64 `json:"margin_pct"`
	// Multiplicity names the correction over the family of primary
	// metrics ("holm": Holm–Bonferroni, family-wise error at most Alpha).
	Multiplicity string   `json:"multiplicity"`
	A            SideInfo `json:"a"`
	B            SideInfo `json:"b"`
	// Workloads are the matched workloads, in A's order.
	Workloads []Workload `json:"workloads"`
	// OnlyA and OnlyB are the workloads without a partner.
	OnlyA []Unmatched `json:"only_a"`
	OnlyB []Unmatched `json:"only_b"`
	// Geomean is the geometric mean of the primary metric's speedup over
	// the matched workloads that are not negative controls.
	Geomean *Geomean `json:"geomean"`
	Env     EnvDiff  `json:"env"`
	// Environment is both environments side by side; Vulnerabilities every
	// vulnerability file of either side.
	Environment     []EnvRow  `json:"environment"`
	Vulnerabilities []VulnRow `json:"vulnerabilities"`
	// Controls are the negative controls: moved, vouching or inconclusive.
	Controls []ControlFinding `json:"controls"`
	// Meaning is what the comparison means ("What this means").
	Meaning  Meaning         `json:"meaning"`
	Notes    []string        `json:"notes"`
	Warnings []stats.Warning `json:"warnings"`
	// Lab is how `sectax lab` measured the runs (accelerator, CPU model);
	// absent for runs measured on a machine itself.
	Lab *LabNote `json:"lab,omitempty"`

	// ratios are the primary speedups the geomean is over, primaries
	// their samples (match to finish).
	ratios    []float64
	primaries []primarySamples
	// speedupIv is the interval of the speedup over primaries (finish).
	speedupIv *stats.Interval
}

// primarySamples are the samples of one workload's primary metric on
// each side, in the unit the test compares (the speedup interval
// resamples them).
type primarySamples struct {
	a, b   []float64
	higher bool
}

// Conclusion kinds.
const (
	// ConclusionSameMitigations: no mitigation changed between the sides;
	// any difference is noise, not a tax.
	ConclusionSameMitigations = "same-mitigations"
	// ConclusionNoDifference: no primary metric differs significantly
	// after the correction for multiple testing.
	ConclusionNoDifference = "no-significant-difference"
	// ConclusionDifference: at least one primary metric differs
	// significantly; Speedup is the geomean (or the one workload's).
	ConclusionDifference = "difference"
	// ConclusionUntested: published figures, no test possible.
	ConclusionUntested = "untested"
)

// Conclusion is the comparison in one line, as data.
type Conclusion struct {
	Kind string `json:"kind"`
	// Speedup is how many times better B is overall (the geomean, or the
	// one workload's primary metric); 0 when there is none.
	Speedup float64 `json:"speedup"`
	// Workloads is how many workloads Speedup is over; Significant how
	// many primary metrics differ significantly after the correction.
	Workloads   int `json:"workloads"`
	Significant int `json:"significant"`
	// SpeedupInterval is the 95% interval of Speedup: a percentile
	// bootstrap that resamples each side's samples (boots, or repetitions
	// where a side is one boot), seeded and so reproducible; null when a
	// side holds published figures or fewer than 2 samples of a workload.
	SpeedupInterval *stats.Interval `json:"speedup_interval"`
	// Equivalence counts the primary metrics of the workloads that are not
	// negative controls by their verdict against the margin; null for
	// published figures.
	Equivalence *EquivalenceCount `json:"equivalence"`
	// Headline is what every format says before the conclusion:
	// TCGHeadline when the runs were emulated; absent otherwise.
	Headline string `json:"headline,omitempty"`
	// SpecControls are the per-process controls the sides requested
	// differently (Env.SpecControls): the mitigation change the command
	// line does not show, named in the conclusion's line.
	SpecControls []SpecControlChange `json:"spec_controls,omitempty"`
}

// SideInfo describes one side.
type SideInfo struct {
	Ref  string `json:"ref"`
	Kind string `json:"kind"`
	// Runs are the run ids (the baseline's name for a baseline).
	Runs   []string `json:"runs"`
	Labels []string `json:"labels"`
	// Boots is the number of distinct boots among the runs.
	Boots int `json:"boots"`
	// Unit is what one sample is: "repetition", "boot" (per-boot medians)
	// or "published figure".
	Unit           string   `json:"unit"`
	MitigationMode []string `json:"mitigation_mode"`
	Kernel         []string `json:"kernel"`
	Hosts          []string `json:"hosts"`
	Published      bool     `json:"published"`
	Title          string   `json:"title,omitempty"`
	Source         string   `json:"source,omitempty"`
	Environment    string   `json:"environment,omitempty"`
	// WSL is true when the side's recorded environment says WSL 2: the
	// runs' env snapshots (wsl.version), or a baseline's environment text.
	WSL bool `json:"wsl,omitempty"`
}

// Name is how reports title the side: its reference.
func (s SideInfo) Name() string { return s.Ref }

// Workload is one matched workload.
type Workload struct {
	ID        string         `json:"workload"`
	Params    map[string]any `json:"params"`
	ParamsKey string         `json:"params_key"`
	Engine    string         `json:"engine,omitempty"`
	Control   bool           `json:"control"`
	// Stresses is the kernel path the workload stresses ("entry/exit"),
	// StressesDetail the workload's own line on what it pays for
	// (workload.Stress.Pays), or the knowledge base's sentence about the
	// path of a workload that has none.
	Stresses       string   `json:"stresses,omitempty"`
	StressesDetail string   `json:"stresses_detail,omitempty"`
	Metrics        []Metric `json:"metrics"`
	// MetricsOnlyA and MetricsOnlyB are metrics one side lacks.
	MetricsOnlyA []string `json:"metrics_only_a,omitempty"`
	MetricsOnlyB []string `json:"metrics_only_b,omitempty"`
}

// Title is the workload with its parameters ("sched-pipe loops=100000").
func (w Workload) Title() string {
	if w.ParamsKey == "" {
		return w.ID
	}
	return w.ID + " " + w.ParamsKey
}

// Metric is one metric of a matched workload.
type Metric struct {
	Name   string        `json:"name"`
	Unit   string        `json:"unit"`
	Better run.Better    `json:"better"`
	A      stats.Summary `json:"a"`
	B      stats.Summary `json:"b"`
	// ChangePct is the change of the median from A to B in percent.
	ChangePct float64 `json:"change_pct"`
	// Speedup is how many times better B is than A in the metric's better
	// direction (above 1: B is better).
	Speedup float64 `json:"speedup"`
	// Role is the metric's part in the family of hypotheses: RolePrimary
	// (the first metric of a workload), RoleSecondary or RoleControl.
	Role string `json:"role"`
	// Test is the U test, nil when a side holds published figures. Its
	// P and Significant are the raw ones, before the correction.
	Test *stats.Comparison `json:"test"`
	// PAdjusted is the p-value after the correction for multiple testing
	// (Holm over the primary metrics; a secondary metric's is the larger of
	// its own and its primary's; a control's is its raw p); nil untested.
	PAdjusted *float64 `json:"p_adjusted"`
	// Significant is the verdict after the correction: PAdjusted ≤ Alpha.
	// Verdict is VerdictSame ("~": benchstat's column) when the test found
	// no significant change.
	Significant bool   `json:"significant"`
	Verdict     string `json:"verdict"`
	// Equivalence is the metric's verdict against the margin (within ±M%,
	// beyond it, inconclusive); DetectablePct the smallest change this
	// run could have detected (a U test at α with 80% power, at its n and
	// spread), from RatioInterval; null without one.
	Equivalence   *Equivalence `json:"equivalence"`
	DetectablePct *float64     `json:"detectable_pct"`
	// RatioInterval is the confidence interval of the ratio B/A that goes
	// with the U test (Hodges-Lehmann), when both sides' samples are of
	// one unit (repetitions, or per-boot medians with the boot as the
	// unit) and enough for one; nil otherwise. JSON adds it as the change
	// in percent, change_pct_interval (Interval.ChangePct).
	RatioInterval *Interval `json:"ratio_interval"`
	// BootShare is how much of each side's spread is boot-to-boot, when
	// a side holds repetitions of two or more boots (absent when neither
	// does). LevelsA and LevelsB are the variance components it is made
	// of (stats.VarianceLevels of the repetitions grouped by boot; nil
	// for a side of fewer than two boots): adaptive repetition sizes the
	// next boots from them.
	BootShare        *BootShare      `json:"boot_share,omitempty"`
	LevelsA, LevelsB *stats.Levels   `json:"-"`
	Warnings         []stats.Warning `json:"warnings,omitempty"`
	// RawA and RawB are every repetition of each side in run order (the
	// samples of A and B before any per-boot pooling), for charts that
	// show the spread and drift. They are not part of the JSON report.
	RawA []float64 `json:"-"`
	RawB []float64 `json:"-"`
}

// BootShare is, per side, the boot-to-boot part of a metric's variance
// in percent (stats.Levels.BootShare × 100): σ²_between / (σ²_between +
// σ²_within), the between-boot estimate clamped at 0 when it comes out
// negative. A side of fewer than two boots, or with no boot of two
// repetitions, has none (null).
type BootShare struct {
	A *float64 `json:"a_pct"`
	B *float64 `json:"b_pct"`
}

// Equivalence is a metric's verdict against the margin: stats.EquivWithin
// when RatioInterval, the (1−2α) interval of the ratio B/A, lies inside
// [1/(1+M), 1+M] (two one-sided tests), stats.EquivBeyond when the change
// is significant (after the correction) and its 95% interval lies
// outside, stats.EquivInconclusive otherwise.
type Equivalence struct {
	MarginPct float64 `json:"margin_pct"`
	Verdict   string  `json:"verdict"`
	// RatioInterval is the (1−2α) interval of the ratio B/A the verdict
	// is judged on; null when the samples are not of one unit on both
	// sides or too few.
	RatioInterval *Interval `json:"ratio_interval"`
}

// EquivalenceCount is how many primary metrics (of workloads that are
// not negative controls) are within the margin, beyond it, or
// inconclusive.
type EquivalenceCount struct {
	MarginPct    float64 `json:"margin_pct"`
	Within       int     `json:"within"`
	Beyond       int     `json:"beyond"`
	Inconclusive int     `json:"inconclusive"`
}

// Metric roles.
const (
	RolePrimary   = "primary"
	RoleSecondary = "secondary"
	RoleControl   = "control"
)

// Interval is a confidence interval of the ratio B/A, in the one JSON
// spelling of an interval (stats.Interval).
type Interval stats.Interval

// ChangePct is the interval as changes of B against A in percent.
func (iv Interval) ChangePct() (lo, hi float64) { return (iv.Lo - 1) * 100, (iv.Hi - 1) * 100 }

// ImpactPct is the interval of "percent better in B" in the metric's
// better direction.
func (iv Interval) ImpactPct(better run.Better) (lo, hi float64) {
	if better == run.Higher {
		return iv.ChangePct()
	}
	return (1/iv.Hi - 1) * 100, (1/iv.Lo - 1) * 100
}

// HalfWidthPct is the larger distance of the interval from no change, in
// percent.
func (iv Interval) HalfWidthPct() float64 { return math.Max(iv.Hi-1, 1-iv.Lo) * 100 }

// finite returns a pointer to v, or nil (JSON null) when v is not a finite
// number: a change from a median of 0 has no percentage.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// MarshalJSON renders change_pct and speedup as null when they are not
// finite (JSON has no infinities), and the ratio interval also as the
// change in percent (change_pct_interval, null without one).
func (m Metric) MarshalJSON() ([]byte, error) {
	type plain Metric
	var pct *stats.Interval
	if m.RatioInterval != nil {
		lo, hi := m.RatioInterval.ChangePct()
		pct = &stats.Interval{Lo: lo, Hi: hi}
	}
	return json.Marshal(struct {
		plain
		ChangePct         *float64        `json:"change_pct"`
		ChangePctInterval *stats.Interval `json:"change_pct_interval"`
		Speedup           *float64        `json:"speedup"`
	}{plain(m), finite(m.ChangePct), pct, finite(m.Speedup)})
}

// MarshalJSON renders change_pct as null when it is not finite (a
// control whose median on A is 0).
func (c ControlFinding) MarshalJSON() ([]byte, error) {
	type plain ControlFinding
	return json.Marshal(struct {
		plain
		ChangePct *float64 `json:"change_pct"`
	}{plain(c), finite(c.ChangePct)})
}

// MarshalJSON renders change_pct as null when it is not finite (a median
// of 0 on A).
func (r Ranked) MarshalJSON() ([]byte, error) {
	type plain Ranked
	return json.Marshal(struct {
		plain
		ChangePct *float64 `json:"change_pct"`
	}{plain(r), finite(r.ChangePct)})
}

// Unmatched is a workload only one side has.
type Unmatched struct {
	ID        string `json:"workload"`
	ParamsKey string `json:"params_key"`
	Engine    string `json:"engine,omitempty"`
}

func (u Unmatched) String() string {
	s := u.ID
	if u.ParamsKey != "" {
		s += " " + u.ParamsKey
	}
	if u.Engine != "" {
		s += " (engine " + u.Engine + ")"
	}
	return s
}

// Geomean summarises the matched workloads.
type Geomean struct {
	Speedup float64 `json:"speedup"`
	// N is the number of workloads it is over.
	N int `json:"n"`
	// Tested is false for published figures. Significant is set when at
	// least one of the primary metrics differs significantly after the
	// correction (Holm rejects the hypothesis that nothing changed).
	Tested      bool `json:"tested"`
	Significant bool `json:"significant"`
	// Interval is the 95% interval of Speedup (Conclusion.SpeedupInterval);
	// null without one.
	Interval *stats.Interval `json:"speedup_interval"`
}

// Control statuses.
const (
	// ControlMoved: the control moved significantly; the comparison is
	// confounded.
	ControlMoved = "moved"
	// ControlVouches: the control did not move, and its interval is
	// narrow enough that it would have seen a change of the size reported.
	ControlVouches = "vouches"
	// ControlInconclusive: the control did not move significantly, but
	// its interval is too wide to tell.
	ControlInconclusive = "inconclusive"
	// ControlUntested: published figures.
	ControlUntested = "untested"
)

// ControlFinding is what a negative control says about the comparison.
type ControlFinding struct {
	Workload  string  `json:"workload"`
	Metric    string  `json:"metric"`
	Status    string  `json:"status"`
	ChangePct float64 `json:"change_pct"`
	P         float64 `json:"p"`
	// HalfWidthPct is how far the control's interval reaches from no
	// change, in percent (null: no interval); NeededPct the change it must
	// be able to see to vouch (the smallest significant change reported,
	// else the high-variance threshold).
	HalfWidthPct *float64 `json:"half_width_pct"`
	NeededPct    float64  `json:"needed_pct"`
	// DetectablePct is the smallest change the control could have
	// detected (Metric.DetectablePct); it vouches only when that is at
	// most NeededPct and its interval lies within ±NeededPct.
	DetectablePct *float64 `json:"detectable_pct"`
	Message       string   `json:"message"`
}
