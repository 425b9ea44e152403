// Package compare builds the A/B model of `sectax compare`: it matches the
// workloads of two sides (runs, labels or published baselines) by id,
// parameters and engine, summarises each metric (median and 95% CI, or per-
// boot medians when a side spans several boots), tests each difference
// (Holm–Bonferroni over one primary metric per workload), computes the
// interval of each ratio, judges the negative controls, and diffs the two
// environments: kernel command-line tokens, vulnerability states, and
// confounders that are not the mitigations. It also draws the conclusions
// ("what this means", the one-line conclusion) as data. CompareSides
// compares two or more sides against the first, one pairwise Report per
// side with one Holm family across them (comparison.go); Compare is its
// pair. Reports lay out the Comparison it returns and compute nothing;
// nothing here prints.
package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// Schema is the value of the "schema" field of the JSON report.
const Schema = "sectax.compare/v2"

// ControlPrefix marks negative-control workloads: they should not move with
// the mitigations.
const ControlPrefix = "ctl-"

// Errors for comparisons that make no sense; the CLI exits 2 on them.
var (
	ErrSameRun         = exit.New(exit.Usage, "the two sides are the same run")
	ErrNothingInCommon = exit.New(exit.Usage, "the two sides have no workload in common")
)

// Options configure Compare.
type Options struct {
	// Alpha is the significance level of the U test (stats.DefaultAlpha
	// when zero).
	Alpha float64
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
// multiple testing.
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

	// ratios are the primary speedups the geomean is over (match to finish).
	ratios []float64
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
	// Headline is what every format says before the conclusion:
	// TCGHeadline when the runs were emulated; absent otherwise.
	Headline string `json:"headline,omitempty"`
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
	// StressesDetail the knowledge base's sentence about it.
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
	// RatioInterval is the confidence interval of the ratio B/A that goes
	// with the U test (Hodges-Lehmann), when both sides' samples are of
	// one unit (repetitions, or per-boot medians with the boot as the
	// unit) and enough for one; nil otherwise. JSON adds it as the change
	// in percent, change_pct_interval (Interval.ChangePct).
	RatioInterval *Interval       `json:"ratio_interval"`
	Warnings      []stats.Warning `json:"warnings,omitempty"`
	// RawA and RawB are every repetition of each side in run order (the
	// samples of A and B before any per-boot pooling), for charts that
	// show the spread and drift. They are not part of the JSON report.
	RawA []float64 `json:"-"`
	RawB []float64 `json:"-"`
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
	Message      string   `json:"message"`
}

// group is the pooled samples of one workload key on one side.
type group struct {
	id, paramsKey, engine string
	params                map[string]any
	metrics               []run.Metric // declarations, in first-seen order
	// perRun[metric] holds, per run index, the run's samples.
	samples map[string]map[int][]float64
}

func resultEngine(r *run.Run, res *run.Result) string {
	if res.Engine != "" {
		return res.Engine
	}
	return r.Engine
}

// groups pools a side's results by workload, parameters and engine.
func groups(s Side) []*group {
	var out []*group
	index := map[string]*group{}
	for ri, r := range s.Runs {
		for i := range r.Results {
			res := &r.Results[i]
			eng := resultEngine(r, res)
			if s.Published() {
				eng = "" // published figures match any engine
			}
			pk := run.ParamsKey(res.Params)
			key := res.Workload + "\x00" + pk + "\x00" + eng
			g := index[key]
			if g == nil {
				g = &group{id: res.Workload, paramsKey: pk, engine: eng, params: res.Params,
					samples: map[string]map[int][]float64{}}
				index[key] = g
				out = append(out, g)
			}
			for _, m := range res.Metrics {
				if g.samples[m.Name] == nil {
					g.samples[m.Name] = map[int][]float64{}
					g.metrics = append(g.metrics, run.Metric{Name: m.Name, Unit: m.Unit, Better: m.Better})
				}
				g.samples[m.Name][ri] = append(g.samples[m.Name][ri], m.Samples...)
			}
		}
	}
	return out
}

// sideSamples returns the samples of one metric: every repetition of every
// run, or, when the side spans two or more boots, one median per boot, or,
// when it spans two or more hosts, one median per host.
func sideSamples(s Side, g *group, metric string, unit string) []float64 {
	byRun := g.samples[metric]
	var out []float64
	key := s.bootKey
	if unit == "host" {
		key = s.hostKey
	}
	if unit != "boot" && unit != "host" {
		for ri := range s.Runs {
			out = append(out, byRun[ri]...)
		}
		return out
	}
	var order []string
	byBoot := map[string][]float64{}
	for ri := range s.Runs {
		if len(byRun[ri]) == 0 {
			continue
		}
		k := key(ri)
		if _, ok := byBoot[k]; !ok {
			order = append(order, k)
		}
		byBoot[k] = append(byBoot[k], byRun[ri]...)
	}
	for _, k := range order {
		out = append(out, stats.Summarize(byBoot[k]).Center)
	}
	return out
}

func sideInfo(s Side) SideInfo {
	si := SideInfo{Ref: s.Ref, Kind: s.Kind, Published: s.Published(),
		MitigationMode: s.values("mitigation_mode"), Kernel: s.values("kernel.release"),
		Hosts: s.values("hostname")}
	boots := map[string]bool{}
	labels := map[string]bool{}
	for i, r := range s.Runs {
		si.Runs = append(si.Runs, r.ID)
		boots[s.bootKey(i)] = true
		if r.Label != "" && !labels[r.Label] {
			labels[r.Label] = true
			si.Labels = append(si.Labels, r.Label)
		}
	}
	si.Boots = len(boots)
	si.WSL = len(s.values("wsl.version")) > 0
	switch {
	case s.Published():
		si.Unit = "published figure"
		si.Title, si.Source, si.Environment = s.Dataset.Title, s.Dataset.Source, s.Dataset.Environment
		si.WSL = si.WSL || strings.Contains(s.Dataset.Environment, "WSL")
		si.Boots = 1
	case len(si.Hosts) >= 2:
		si.Unit = "host"
	case si.Boots >= 2:
		si.Unit = "boot"
	default:
		si.Unit = "repetition"
	}
	return si
}

// Compare builds the report of A against B: the Pair of CompareSides.
// It refuses sides measured under different accelerators
// (*MixedAcceleratorsError).
func Compare(a, b Side, opt Options) (*Report, error) {
	c, err := CompareSides([]Side{a, b}, opt)
	if err != nil {
		return nil, err
	}
	return c.Pair(), nil
}

// match builds the report of A against B up to the tests: the matched
// workloads with their summaries, raw tests and ratio intervals. adjust
// then corrects the p-values over the family, and finish draws the rest.
func match(a, b Side, opt Options) (*Report, error) {
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = stats.DefaultAlpha
	}
	if err := stats.CheckAlpha(alpha); err != nil {
		return nil, err
	}
	if len(a.Runs) == 0 || len(b.Runs) == 0 {
		return nil, fmt.Errorf("a side holds no runs")
	}
	inA := map[string]bool{}
	for _, r := range a.Runs {
		inA[r.ID] = true
	}
	for _, r := range b.Runs {
		if inA[r.ID] {
			if len(a.Runs) == 1 && len(b.Runs) == 1 {
				return nil, fmt.Errorf("%w (%s): compare two different runs or labels", ErrSameRun, r.ID)
			}
			return nil, fmt.Errorf("%w: run %s is on both sides (%s and %s); compare disjoint sets of runs", ErrSameRun, r.ID, a.Ref, b.Ref)
		}
	}
	rep := &Report{Schema: Schema, Alpha: alpha, Confidence: stats.Confidence, Multiplicity: Multiplicity,
		A: sideInfo(a), B: sideInfo(b), OnlyA: []Unmatched{}, OnlyB: []Unmatched{},
		Workloads: []Workload{}, Controls: []ControlFinding{}, Notes: []string{}, Warnings: []stats.Warning{}}
	// The ratio's interval needs samples of one unit on both sides:
	// repetitions, or per-boot medians (the boot as the unit).
	interval := rep.A.Unit == rep.B.Unit && (rep.A.Unit == "repetition" || rep.A.Unit == "boot")

	ga, gb := groups(a), groups(b)
	usedB := make([]bool, len(gb))
	var ratios []float64
	var noSamples []string
	for _, x := range ga {
		j := -1
		for k, y := range gb {
			if !usedB[k] && y.id == x.id && y.paramsKey == x.paramsKey &&
				(x.engine == y.engine || x.engine == "" || y.engine == "") {
				j = k
				break
			}
		}
		if j < 0 {
			rep.OnlyA = append(rep.OnlyA, Unmatched{x.id, x.paramsKey, x.engine})
			continue
		}
		usedB[j] = true
		y := gb[j]
		eng := x.engine
		if eng == "" {
			eng = y.engine
		}
		w := Workload{ID: x.id, Params: x.params, ParamsKey: x.paramsKey, Engine: eng,
			Control: strings.HasPrefix(x.id, ControlPrefix)}
		if w.Params == nil {
			w.Params = map[string]any{}
		}
		common := 0
		inB := map[string]run.Metric{}
		for _, m := range y.metrics {
			inB[m.Name] = m
		}
		for _, ma := range x.metrics {
			mb, ok := inB[ma.Name]
			if !ok {
				w.MetricsOnlyA = append(w.MetricsOnlyA, ma.Name)
				continue
			}
			delete(inB, ma.Name)
			common++
			sa, sb := sideSamples(a, x, ma.Name, rep.A.Unit), sideSamples(b, y, ma.Name, rep.B.Unit)
			if len(sa) == 0 || len(sb) == 0 {
				// A run cut short before its first repetition of this
				// workload: nothing to compare.
				empty := []string{}
				if len(sa) == 0 {
					empty = append(empty, a.Ref)
				}
				if len(sb) == 0 {
					empty = append(empty, b.Ref)
				}
				noSamples = append(noSamples, fmt.Sprintf("%s %s (%s)", x.id, ma.Name, strings.Join(empty, ", ")))
				continue
			}
			// sa and sb are this comparison's own copies, and every statistic
			// below sorts its own copy of them: sorted once here, those sorts
			// meet sorted input, which pdqsort finishes in one linear pass.
			slices.Sort(sa)
			slices.Sort(sb)
			m := metric(ma, mb, sa, sb, alpha, a.Published(), b.Published())
			m.RawA, m.RawB = sideSamples(a, x, ma.Name, "repetition"), sideSamples(b, y, ma.Name, "repetition")
			if interval {
				if lo, hi, ok := stats.RatioInterval(sa, sb, stats.Confidence); ok && finite(lo) != nil && finite(hi) != nil {
					m.RatioInterval = &Interval{Lo: lo, Hi: hi}
				}
			}
			w.Metrics = append(w.Metrics, m)
		}
		for _, mb := range y.metrics {
			if _, left := inB[mb.Name]; left {
				w.MetricsOnlyB = append(w.MetricsOnlyB, mb.Name)
			}
		}
		if len(w.Metrics) == 0 {
			if common == 0 { // no metric in common: unmatched
				rep.OnlyA = append(rep.OnlyA, Unmatched{x.id, x.paramsKey, x.engine})
				rep.OnlyB = append(rep.OnlyB, Unmatched{y.id, y.paramsKey, y.engine})
			} // else: every common metric lacks samples, and the warning says so
			continue
		}
		if !w.Control && w.Metrics[0].Speedup > 0 && !math.IsInf(w.Metrics[0].Speedup, 0) {
			ratios = append(ratios, w.Metrics[0].Speedup)
		}
		rep.Workloads = append(rep.Workloads, w)
	}
	for k, y := range gb {
		if !usedB[k] {
			rep.OnlyB = append(rep.OnlyB, Unmatched{y.id, y.paramsKey, y.engine})
		}
	}
	if len(rep.Workloads) == 0 {
		fix := "compare runs of the same workloads with the same parameters"
		if a.Published() || b.Published() {
			fix = "a baseline holds the study's parameters: measure with 'sectax run --suite study' to compare with it"
		}
		return nil, fmt.Errorf("%w (%s has %s; %s has %s): %s",
			ErrNothingInCommon, a.Ref, listUnmatched(rep.OnlyA), b.Ref, listUnmatched(rep.OnlyB), fix)
	}
	rep.ratios = ratios
	if len(noSamples) > 0 {
		rep.Warnings = append(rep.Warnings, stats.NewWarning(stats.KindNoSamples,
			"not compared, no samples on a side (a run cut short?): "+strings.Join(noSamples, "; "), ""))
	}
	return rep, nil
}

// finish draws what depends on the corrected verdicts: the geomean, the
// environment diff, the controls, notes, meaning and conclusion.
func (rep *Report) finish(a, b Side) {
	ratios := rep.ratios
	if g, ok := stats.GeoMean(ratios); ok && len(ratios) >= 2 {
		rep.Geomean = &Geomean{Speedup: g, N: len(ratios), Tested: !a.Published() && !b.Published(),
			Significant: rep.significantPrimaries() > 0}
	}
	rep.Env = envDiff(a, b)
	rep.Env.addVulnerabilityText()
	rep.Environment = environment(a, b)
	rep.Vulnerabilities = allVulns(a, b)
	rep.addControls()
	rep.addNotes(a, b)
	rep.runsDifferOnly()
	rep.addMeaning()
	rep.addConclusion()
}

func listUnmatched(us []Unmatched) string {
	if len(us) == 0 {
		return "nothing"
	}
	var s []string
	for _, u := range us {
		s = append(s, u.String())
	}
	return strings.Join(s, ", ")
}

func metric(ma, mb run.Metric, sa, sb []float64, alpha float64, pubA, pubB bool) Metric {
	m := Metric{Name: ma.Name, Unit: ma.Unit, Better: ma.Better, A: stats.Summarize(sa), B: stats.Summarize(sb)}
	m.ChangePct = stats.ChangePct(m.A.Center, m.B.Center)
	m.Speedup = stats.Speedup(m.A.Center, m.B.Center, ma.Better == run.Higher)
	if pubA || pubB {
		// Single published figures: there is nothing to test, and their
		// "too few samples" warnings would only repeat that. A measured
		// side keeps its own warnings.
		if pubA {
			m.A.Warnings = nil
		}
		if pubB {
			m.B.Warnings = nil
		}
		m.Verdict = VerdictUntested
		return m
	}
	c := stats.Compare(sa, sb, alpha)
	m.Test = &c
	m.setVerdict(c.Significant) // final after adjust
	if mb.Unit != ma.Unit {
		m.Warnings = append(m.Warnings, stats.NewWarning(KindUnitMismatch,
			fmt.Sprintf("A measures %s in %q but B in %q", ma.Name, ma.Unit, mb.Unit), ""))
	}
	return m
}

// setVerdict sets Significant and Verdict.
func (m *Metric) setVerdict(significant bool) {
	m.Significant = significant
	switch {
	case !significant:
		m.Verdict = VerdictSame
	case m.Speedup > 1:
		m.Verdict = VerdictBetter
	default:
		m.Verdict = VerdictWorse
	}
}

func (rep *Report) addNotes(a, b Side) {
	var pub []string
	for _, s := range []Side{a, b} {
		if s.Published() {
			pub = append(pub, s.Ref)
		}
	}
	if len(pub) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: published single figures carry no interval and allow no significance test; "+
			"changes involving them are shown untested, as the source reported them", strings.Join(pub, ", ")))
	}
	if synthetic(a) || synthetic(b) {
		rep.Notes = append(rep.Notes, "SYNTHETIC DATA: runs here were generated from documented distributions (a test fixture), not measured")
	}
	for _, s := range []SideInfo{rep.A, rep.B} {
		if s.Unit == "boot" {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s spans %d boots: its samples are per-boot medians (the boot is the unit)", s.Ref, s.Boots))
		}
		if s.Unit == "host" {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s spans %d hosts: its samples are per-host medians (the host is the unit)", s.Ref, len(s.Hosts)))
		}
	}
	if len(pub) == 0 {
		var single []string
		var singleSides []Side
		for i, s := range []SideInfo{rep.A, rep.B} {
			if s.Boots < 2 {
				single = append(single, s.Ref)
				singleSides = append(singleSides, []Side{a, b}[i])
			}
		}
		if len(single) > 0 {
			rep.Warnings = append(rep.Warnings, stats.NewWarning(KindOneBoot, fmt.Sprintf(
				"one boot per side (%s): boot-to-boot variation is not in the intervals; %s, so that the boot becomes the unit",
				strings.Join(single, ", "), moreBoots(singleSides)), ""))
		}
	}
	for _, s := range []Side{a, b} {
		for _, r := range s.Runs {
			if r.Status != run.StatusComplete && r.Status != "" {
				rep.Warnings = append(rep.Warnings, stats.NewWarning(KindIncompleteRun, fmt.Sprintf(
					"run %s (%s) is %s: the samples it finished are used", r.ID, s.Ref, r.Status), ""))
			}
		}
	}
	if len(rep.Env.Confounders) > 0 {
		var names []string
		for _, c := range rep.Env.Confounders {
			names = append(names, c.Name)
		}
		verb := "differs"
		if len(names) > 1 {
			verb = "differ"
		}
		rep.Warnings = append(rep.Warnings, stats.NewWarning(KindConfounded, fmt.Sprintf(
			"besides the mitigations, %s %s: the tax measured here may not be the mitigations' alone", strings.Join(names, ", "), verb), ""))
	}
	ma, mb := rep.A.MitigationMode, rep.B.MitigationMode
	if len(ma) == 1 && len(mb) == 1 && ma[0] == mb[0] && len(rep.Env.Vulnerabilities) == 0 && !rep.Env.MitigationTokensChanged() {
		rep.Warnings = append(rep.Warnings, stats.NewWarning(KindSameMitigations, fmt.Sprintf(
			"both sides ran with mitigations %s and no vulnerability changed state: this comparison does not measure a mitigation change", ma[0]), ""))
	}
	for _, s := range []SideInfo{rep.A, rep.B} {
		if len(s.MitigationMode) > 1 {
			rep.Warnings = append(rep.Warnings, stats.NewWarning(KindMixedSide, fmt.Sprintf(
				"%s mixes runs with mitigations %s: give each side runs of one setting", s.Ref, strings.Join(s.MitigationMode, " and ")), ""))
		}
	}
	// Statistical warnings of the metrics, once per message, naming where.
	type place struct {
		msg  string
		kind stats.Kind
	}
	where := map[place][]string{}
	var order []place
	for _, w := range rep.Workloads {
		for _, m := range w.Metrics {
			add := func(side string, ws []stats.Warning) {
				for _, x := range ws {
					if x.Fix == stats.FixMoreRepetitions && (side == " (A)" && rep.A.Unit == "boot" || side == " (B)" && rep.B.Unit == "boot" ||
						side == "" && (rep.A.Unit == "boot" || rep.B.Unit == "boot")) {
						// A sample is a boot here: more repetitions do not help.
						x = x.WithFix(moreBootsFix([]Side{a, b}))
					}
					p := place{x.Message, x.Kind}
					if _, ok := where[p]; !ok {
						order = append(order, p)
					}
					where[p] = append(where[p], w.ID+" "+m.Name+side)
				}
			}
			add(" (A)", m.A.Warnings)
			add(" (B)", m.B.Warnings)
			if m.Test != nil {
				add("", m.Test.Warnings)
			}
			add("", m.Warnings)
		}
	}
	for _, p := range order {
		places := where[p]
		sort.Strings(places)
		if len(places) > 4 {
			places = append(places[:4], fmt.Sprintf("and %d more", len(places)-4))
		}
		rep.Warnings = append(rep.Warnings, stats.Warning{Kind: p.kind, Message: p.msg + " [" + strings.Join(places, ", ") + "]"})
	}
}

// moreBootsFix is the fix for too few samples when a sample is a boot, in
// the words of the command that measured the sides (as moreBoots): a lab
// and a campaign get more boots with --boots, anything else by rebooting.
func moreBootsFix(sides []Side) string {
	switch moreBoots(sides) {
	case moreBootsLab:
		return "measure in more boots (run sectax lab again with a larger --boots)"
	case moreBootsCampaign:
		return "measure in more boots (sectax campaign start with a larger --boots)"
	}
	return fixMoreBoots
}

// moreBoots is the fix for sides of one boot, in the words of the command
// that measured them: a lab boots again with --boots, a campaign with
// campaign start --boots, anything else after a reboot of this machine.
const (
	moreBootsLab      = "run sectax lab again with --boots 2 or more"
	moreBootsCampaign = "run the campaign with --boots 2 or more (sectax campaign start --boots N)"
)

func moreBoots(sides []Side) string {
	lab, campaign, all := true, true, 0
	for _, s := range sides {
		for _, r := range s.Runs {
			all++
			lab = lab && r.Lab != nil
			campaign = campaign && r.Campaign != nil && r.Lab == nil
		}
	}
	switch {
	case all > 0 && lab:
		return moreBootsLab
	case all > 0 && campaign:
		return moreBootsCampaign
	}
	return "repeat each side after another reboot with the same label"
}
