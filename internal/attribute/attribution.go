package attribute

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// AttributionSchema is the value of the "schema" field of the report.
const AttributionSchema = "sectax.attribution/v2"

// ErrNoOn says that the runs hold no configuration "on" to compare with
// (a usage error: the runs asked for cannot be attributed).
var ErrNoOn = exit.New(exit.Usage, "no runs of configuration on: every configuration is compared with on")

// Arm is the runs measured under one configuration.
type Arm struct {
	Name string
	// Kind is base, leave-one-out, cumulative or study (KindOf(Name) when
	// empty).
	Kind string
	Runs []*run.Run
	// Envs are the runs' stored environments, decoded (parallel to Runs;
	// nil, or a nil entry, when a run's is to be read from its Env).
	Envs []map[string]any
}

// KindOf infers a configuration's kind from the plan's names.
func KindOf(name string) string {
	switch {
	case name == "on" || name == "off":
		return KindBase
	case IsVectorConfig(name):
		return KindVectors
	case strings.HasPrefix(name, "no-"):
		return KindLeaveOneOut
	case strings.HasPrefix(name, "cum-"):
		return KindCumulative
	case slices.Contains([]string{"study-off", "mitigations-only", "rest-only"}, name):
		return KindStudy
	}
	return "extra"
}

// Attribution splits the tax of each workload among the mitigations.
type Attribution struct {
	Schema     string  `json:"schema"`
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`
	// Configs are the configurations with runs, "on" first.
	Configs   []ArmInfo             `json:"configs"`
	Workloads []WorkloadAttribution `json:"workloads"`
	Notes     []string              `json:"notes"`
	// Headline is what every format says first: compare.TCGHeadline when
	// the runs were emulated under `sectax lab --accel tcg`.
	Headline string `json:"headline,omitempty"`
	// Multiplicity and Family are the correction of the one comparison
	// (compare.CompareSides: on the baseline, every configuration a side):
	// Holm over every configuration's primary metrics together.
	Multiplicity string `json:"multiplicity"`
	Family       int    `json:"family"`
	// Conclusions are compare's conclusion of each configuration against
	// on, in the order of Configs after on.
	Conclusions []compare.SideConclusion `json:"conclusions"`
	// NothingToAttribute is set when no configuration changed a mitigation
	// against on (each one's conclusion is compare's "no mitigation
	// changed"): what differs is noise or another change, not a tax.
	NothingToAttribute bool `json:"nothing_to_attribute"`
	// Comparison is the one comparison the attribution is read from (its
	// headline, conclusions, controls and warnings); not in the JSON (the
	// fields above hold what the attribution says).
	Comparison *compare.Comparison `json:"-"`
}

// ArmInfo describes the runs of one configuration.
type ArmInfo struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Runs  int    `json:"runs"`
	Boots int    `json:"boots"`
	Unit  string `json:"unit"`
}

// WorkloadAttribution is the attribution of one workload's primary metric.
type WorkloadAttribution struct {
	Workload string `json:"workload"`
	Params   string `json:"params"`
	Metric   string `json:"metric"`
	Unit     string `json:"unit"`
	Better   string `json:"better"`
	// Total is what mitigations=off saves (configuration "off"); nil when
	// off was not measured.
	Total *Effect `json:"total"`
	// Parts are the leave-one-out configurations: what switching off one
	// mitigation saves, and its share of Total.
	Parts []Part `json:"parts"`
	// SumParts is the sum of the parts' taxes; Interaction is Total minus
	// SumParts (nil without Total): what the mitigations cost together
	// beyond their separate costs (negative: they overlap).
	SumParts    float64  `json:"sum_parts_pct"`
	Interaction *float64 `json:"interaction_pct"`
	// Waterfall is the cumulative order: the tax removed after each step.
	Waterfall []Step `json:"waterfall"`
	// Others are the remaining configurations (study set, extras).
	Others []Effect `json:"others"`
}

// Effect is what a configuration saves against on, as a tax: how much
// worse on is than the configuration, in percent of the configuration
// (+20: with the mitigation on the workload is 20% slower). TaxPctInterval
// bounds it: the U test's ratio interval as a tax in percent; nil when the
// samples are too few. ChangePct is the same difference in compare's
// convention: the change of the configuration's median from on's (−16.7
// for that +20 tax of a lower-is-better metric).
type Effect struct {
	Config         string          `json:"config"`
	TaxPct         float64         `json:"tax_pct"`
	TaxPctInterval *stats.Interval `json:"tax_pct_interval"`
	ChangePct      float64         `json:"change_pct"`
	// P is the U test's raw p-value, PAdjusted the p-value after Holm's
	// correction over the whole attribution (every configuration's primary
	// metrics: one family), as `sectax compare on CONFIG...` gives it.
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	// Significant is the verdict at Alpha on PAdjusted.
	Significant bool   `json:"significant"`
	N           string `json:"n"`
	// Equivalence is compare's verdict of the change against the margin
	// (within ±M%, beyond it, inconclusive) and DetectablePct the smallest
	// change the runs could have detected; null untested.
	Equivalence   *compare.Equivalence `json:"equivalence"`
	DetectablePct *float64             `json:"detectable_pct"`
}

// Part is one leave-one-out configuration.
type Part struct {
	Effect
	// SharePct is TaxPct over the total tax; nil without a total or when
	// the total is 0.
	SharePct *float64 `json:"share_pct"`
	// Expected is what the knowledge base says the mitigation costs
	// (CiteCosts), "(unverified)" when it marks the note so.
	Expected string `json:"expected,omitempty"`
}

// CiteCosts sets each leave-one-out part's Expected from the knowledge
// base: the cost note of the file a no-FILE configuration turns off (mds
// for no-verw, the buffer clear the VERW users share).
func CiteCosts(a *Attribution, kb *mitigation.Knowledge) {
	for i := range a.Workloads {
		for j := range a.Workloads[i].Parts {
			p := &a.Workloads[i].Parts[j]
			file := strings.TrimPrefix(p.Config, "no-")
			if file == "verw" {
				file = "mds"
			}
			e, ok := kb.LookupVulnerability(file)
			if !ok || e.CostNote == "" {
				continue
			}
			p.Expected = e.CostNote
			if slices.Contains(e.Unverified, "cost_note") {
				p.Expected += " (unverified)"
			}
		}
	}
}

// Step is one step of the waterfall.
type Step struct {
	Config string `json:"config"`
	// CumulativePct is the tax removed by this configuration against on;
	// StepPct what this step added to the previous one.
	CumulativePct float64 `json:"cumulative_pct"`
	StepPct       float64 `json:"step_pct"`
}

// Attribute compares every configuration with on in one comparison
// (compare.CompareSides: on the baseline, one Holm family over every
// configuration's primary metrics, as `sectax compare on CONFIG...` does),
// per workload and primary metric (medians, U test, per-boot medians when a
// configuration spans boots, the ratio interval), and splits the total tax
// into leave-one-out parts, their interaction and the cumulative waterfall
// (in the order given; configurations without runs are left out of it). A
// configuration compare cannot compare with on (no workload in common) is
// left out with a note.
func Attribute(arms []Arm, waterfall []string, alpha float64) (*Attribution, error) {
	return AttributeWith(arms, waterfall, compare.Options{Alpha: alpha})
}

// AttributeWith is Attribute with the comparison's options: its α and
// its equivalence margin (--margin), which each effect's verdict is judged
// against.
func AttributeWith(arms []Arm, waterfall []string, opt compare.Options) (*Attribution, error) {
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = stats.DefaultAlpha
	}
	opt.Alpha = alpha
	i := slices.IndexFunc(arms, func(a Arm) bool { return a.Name == "on" })
	if i < 0 || len(arms[i].Runs) == 0 {
		return nil, ErrNoOn
	}
	on := arms[i]
	att := &Attribution{Schema: AttributionSchema, Alpha: alpha, Confidence: stats.Confidence,
		Configs: []ArmInfo{}, Workloads: []WorkloadAttribution{}, Notes: []string{}, Conclusions: []compare.SideConclusion{}}
	ordered := append([]Arm{on}, slices.DeleteFunc(slices.Clone(arms), func(a Arm) bool { return a.Name == "on" })...)
	var compared []Arm
	for _, a := range ordered[1:] {
		if len(a.Runs) == 0 {
			att.Notes = append(att.Notes, fmt.Sprintf("configuration %s has no runs", a.Name))
			continue
		}
		compared = append(compared, a)
	}
	cmp, compared, err := compareArms(on, compared, opt, att)
	if err != nil {
		return nil, err
	}
	if cmp == nil {
		return nil, exit.Usagef("no workload was measured both under on and under another configuration")
	}
	att.Comparison = cmp
	onInfo := ArmInfo{Name: "on", Kind: kindOf(on), Runs: len(on.Runs)}
	onInfo.Boots, onInfo.Unit = cmp.Baseline.Boots, cmp.Baseline.Unit
	att.Headline, att.Multiplicity, att.Family = cmp.Headline, cmp.Multiplicity, cmp.Family
	att.Conclusions = cmp.Conclusions
	att.NothingToAttribute = !slices.ContainsFunc(cmp.Conclusions, func(sc compare.SideConclusion) bool {
		return sc.Conclusion.Kind != compare.ConclusionSameMitigations
	})
	att.Configs = append(att.Configs, onInfo)

	type key struct{ id, params, engine string }
	byKey := map[key]*WorkloadAttribution{}
	var order []key
	effects := map[string]map[key]Effect{}
	kinds := map[string]string{}
	for ai, a := range compared {
		rep := cmp.Comparisons[ai]
		kind := kindOf(a)
		if kind == KindBase && a.Name != "off" {
			kind = "extra"
		}
		kinds[a.Name] = kind
		att.Configs = append(att.Configs, ArmInfo{Name: a.Name, Kind: kind, Runs: len(a.Runs), Boots: rep.B.Boots, Unit: rep.B.Unit})
		effects[a.Name] = map[key]Effect{}
	}
	// The comparison's rows: a row per workload and metric, a cell per
	// configuration (the primary metric's row is the workload's first).
	for _, r := range cmp.Rows {
		k := key{r.Workload.ID, r.Workload.ParamsKey, r.Workload.Engine}
		for ai, m := range r.Sides {
			if m == nil || m.Role == compare.RoleSecondary {
				continue
			}
			if byKey[k] == nil {
				byKey[k] = &WorkloadAttribution{Workload: r.Workload.ID, Params: r.Workload.ParamsKey, Metric: m.Name, Unit: m.Unit,
					Better: string(m.Better), Parts: []Part{}, Waterfall: []Step{}, Others: []Effect{}}
				order = append(order, k)
			}
			if byKey[k].Metric != m.Name {
				continue // the workload's primary metric only
			}
			effects[compared[ai].Name][k] = effectOf(compared[ai].Name, *m)
		}
	}

	for _, k := range order {
		wa := byKey[k]
		if e, ok := effects["off"][k]; ok {
			wa.Total = &e
		}
		for _, a := range compared {
			e, ok := effects[a.Name][k]
			if !ok || a.Name == "off" {
				continue
			}
			switch kinds[a.Name] {
			case KindLeaveOneOut:
				p := Part{Effect: e}
				if wa.Total != nil && wa.Total.TaxPct != 0 {
					s := 100 * e.TaxPct / wa.Total.TaxPct
					p.SharePct = &s
				}
				wa.Parts = append(wa.Parts, p)
				wa.SumParts += e.TaxPct
			default:
				wa.Others = append(wa.Others, e)
			}
		}
		if wa.Total != nil {
			in := wa.Total.TaxPct - wa.SumParts
			wa.Interaction = &in
		}
		prev := 0.0
		for _, name := range waterfall {
			var cum float64
			if name == "on" {
				cum = 0
			} else if e, ok := effects[name][k]; ok {
				cum = e.TaxPct
			} else {
				continue
			}
			wa.Waterfall = append(wa.Waterfall, Step{Config: name, CumulativePct: cum, StepPct: cum - prev})
			prev = cum
		}
		att.Workloads = append(att.Workloads, *wa)
	}
	if _, ok := effects["off"]; !ok {
		att.Notes = append(att.Notes, "configuration off (mitigations=off) has no runs: no total, no shares, no interaction")
	}
	if len(att.Workloads) == 0 {
		return nil, exit.Usagef("no workload was measured both under on and under another configuration")
	}
	return att, nil
}

// kindOf is the arm's kind, KindOf its name when it has none.
func kindOf(a Arm) string {
	if a.Kind == "" {
		return KindOf(a.Name)
	}
	return a.Kind
}

// compareArms compares the arms with on in one comparison. An arm compare
// cannot compare with on (*compare.SideError: no workload in common, …) is
// left out with a note, and the rest compared again; it returns the
// comparison (nil when no arm is left) and the arms it holds, in order.
func compareArms(on Arm, arms []Arm, opt compare.Options, att *Attribution) (*compare.Comparison, []Arm, error) {
	for len(arms) > 0 {
		sides := []compare.Side{compare.RunsSide("on", compare.KindLabel, on.Runs, on.Envs)}
		for _, a := range arms {
			sides = append(sides, compare.RunsSide(a.Name, compare.KindLabel, a.Runs, a.Envs))
		}
		cmp, err := compare.CompareSides(sides, opt)
		if err == nil {
			return cmp, arms, nil
		}
		var se *compare.SideError
		if !errors.As(err, &se) {
			return nil, nil, err
		}
		att.Notes = append(att.Notes, fmt.Sprintf("%s: %v", se.Side, se.Err))
		arms = slices.DeleteFunc(arms, func(a Arm) bool { return a.Name == se.Side })
	}
	return nil, nil, nil
}

// effectOf turns one compared metric into a tax: the speedup of the
// configuration over on, less one, in percent, with the ratio interval
// when both sides' samples are repetitions (a side of several boots is
// compared on per-boot medians, and its repetitions are no independent
// samples).
func effectOf(name string, m compare.Metric) Effect {
	e := Effect{Config: name, TaxPct: (m.Speedup - 1) * 100, ChangePct: m.ChangePct, P: 1, PAdjusted: 1}
	if math.IsNaN(e.TaxPct) || math.IsInf(e.TaxPct, 0) {
		e.TaxPct = 0
	}
	if math.IsNaN(e.ChangePct) || math.IsInf(e.ChangePct, 0) {
		e.ChangePct = 0
	}
	if m.Test != nil {
		e.P, e.N = m.Test.P, m.Test.N()
	}
	if m.PAdjusted != nil {
		e.PAdjusted = *m.PAdjusted
	}
	e.Significant = m.Significant
	e.Equivalence, e.DetectablePct = m.Equivalence, m.DetectablePct
	// compare owns the interval: the ratio B/A that goes with the U test,
	// over repetitions or, when both sides span several boots, over the
	// per-boot medians (the boot as the unit).
	if m.RatioInterval == nil {
		return e
	}
	// The tax is how much better the configuration (B) is than on (A).
	l, h := m.RatioInterval.ImpactPct(m.Better)
	e.TaxPctInterval = &stats.Interval{Lo: l, Hi: h}
	return e
}

// ByVector is att with the attack vectors as its parts (`attribute report
// --by vector`): each single-vector configuration of the vector plan
// (no-user_kernel, …) becomes a part with its share of the total, the
// leave-one-out parts move to Others, and the sum and interaction are the
// vectors'. A vector's part is what dropping it alone saves: a bug that
// two vectors serve stays on when one is dropped, so its cost is in the
// interaction, not in either part.
func ByVector(att *Attribution) *Attribution {
	out := *att
	out.Workloads = make([]WorkloadAttribution, len(att.Workloads))
	for i, wa := range att.Workloads {
		w := wa
		w.Parts, w.Others, w.SumParts, w.Interaction = []Part{}, []Effect{}, 0, nil
		for _, p := range wa.Parts {
			w.Others = append(w.Others, p.Effect)
		}
		for _, v := range mitigation.Vectors {
			for _, e := range wa.Others {
				if e.Config != VectorConfigName(v) {
					continue
				}
				p := Part{Effect: e}
				if w.Total != nil && w.Total.TaxPct != 0 {
					s := 100 * e.TaxPct / w.Total.TaxPct
					p.SharePct = &s
				}
				w.Parts = append(w.Parts, p)
				w.SumParts += e.TaxPct
			}
		}
		for _, e := range wa.Others {
			if !slices.ContainsFunc(w.Parts, func(p Part) bool { return p.Config == e.Config }) {
				w.Others = append(w.Others, e)
			}
		}
		if w.Total != nil {
			in := w.Total.TaxPct - w.SumParts
			w.Interaction = &in
		}
		out.Workloads[i] = w
	}
	out.Notes = append(slices.Clone(att.Notes), "by vector: each part is what dropping that attack vector alone saves (the no-VECTOR configurations of 'attribute plan --plan vectors'); a bug two vectors serve stays on when one is dropped, so its cost is in the interaction")
	return &out
}
