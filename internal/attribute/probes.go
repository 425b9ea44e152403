// Package attribute answers which mitigation costs what: the taxes of the
// per-task speculation controls measured within one boot (probes), the
// configurations that switch off one mitigation at a time (plan), and the
// arithmetic that splits a total tax into its parts (attribution).
// Nothing here prints.
package attribute

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/workload"
)

// ProbesSchema is the value of the "schema" field of the probes report.
const ProbesSchema = "sectax.probes/v2"

// BaselineState is the name of the state with every available control off.
const BaselineState = "baseline"

// State is one arm of the probes: the settings its repetitions run under.
type State struct {
	// Name is BaselineState or the control switched on ("ssbd").
	Name     string
	Settings []workload.SpecCtlSetting
}

// States returns the arms for the available controls: the baseline (all
// off) and one per control (that one on — force where it exists — the
// others off). Empty when no control is available.
func States(offers []workload.SpecCtlOffer) []State {
	var avail []string
	for _, o := range offers {
		if o.Available {
			avail = append(avail, o.Control)
		}
	}
	if len(avail) == 0 {
		return nil
	}
	mk := func(on string) []workload.SpecCtlSetting {
		var s []workload.SpecCtlSetting
		for _, c := range avail {
			v := "off"
			if c == on {
				v = "force"
				if c == "l1d_flush" {
					v = "on"
				}
			}
			s = append(s, workload.SpecCtlSetting{Control: c, Value: v})
		}
		return s
	}
	out := []State{{Name: BaselineState, Settings: mk("")}}
	for _, c := range avail {
		out = append(out, State{Name: c, Settings: mk(c)})
	}
	return out
}

// StateOf names the arm a result ran under, from its recorded controls:
// BaselineState when every control was off, the control when exactly one
// was on, "" otherwise (not a probes result).
func StateOf(res *run.Result) string {
	if len(res.SpecControls) == 0 {
		return ""
	}
	on := ""
	for _, c := range res.SpecControls {
		if c.Requested == "off" {
			continue
		}
		if on != "" {
			return ""
		}
		on = c.Control
	}
	if on == "" {
		return BaselineState
	}
	return on
}

// ProbeReport is the tax of each control on each probe workload.
type ProbeReport struct {
	Schema     string  `json:"schema"`
	Run        string  `json:"run"`
	Kernel     string  `json:"kernel"`
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`
	// Controls says for each control whether the kernel offers it, and
	// why not.
	Controls []workload.SpecCtlOffer `json:"controls"`
	Rows     []ProbeRow              `json:"rows"`
	Notes    []string                `json:"notes"`
}

// ProbeRow is one control's tax on one workload (primary metric).
type ProbeRow struct {
	Workload  string `json:"workload"`
	ParamsKey string `json:"params"`
	Control   string `json:"control"`
	State     string `json:"state"`
	Metric    string `json:"metric"`
	Unit      string `json:"unit"`
	Better    string `json:"better"`
	// Off and On are the medians with their intervals.
	Off stats.Summary `json:"off"`
	On  stats.Summary `json:"on"`
	// ChangePct is the change of the median from off to on;
	// ChangePctInterval bounds it (the ratio interval of the U test, in
	// percent); nil when the samples are too few.
	ChangePct         float64         `json:"change_pct"`
	ChangePctInterval *stats.Interval `json:"change_pct_interval"`
	// P is the U test's raw p-value, PAdjusted the p-value after Holm's
	// correction over every control's workloads (one comparison: the
	// baseline arm and a side per control).
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	// Significant is the verdict at Alpha on PAdjusted (benchstat's "~"
	// when false).
	Significant bool `json:"significant"`
	// Verified summarises what /proc showed for the control on the on arm.
	Verified string   `json:"verified"`
	Warnings []string `json:"warnings,omitempty"`
}

// ProbeTaxes compares, in a probes run, every control's arm with the
// baseline arm of the same workload and parameters, in one comparison
// (compare.CompareSides: median, U test, ratio interval, one Holm family
// over every control's workloads).
func ProbeTaxes(r *run.Run, offers []workload.SpecCtlOffer, alpha float64) (*ProbeReport, error) {
	rep := &ProbeReport{Schema: ProbesSchema, Run: r.ID, Alpha: alpha, Confidence: stats.Confidence,
		Controls: offers, Rows: []ProbeRow{}, Notes: []string{}}
	if rep.Alpha == 0 {
		rep.Alpha = stats.DefaultAlpha
	}
	if r.Env != nil {
		rep.Kernel = r.Env.Kernel.Release
	}
	type key struct{ id, params string }
	base := map[key]*run.Result{}
	var baseOrder []key
	for i := range r.Results {
		res := &r.Results[i]
		if StateOf(res) == BaselineState {
			k := key{res.Workload, run.ParamsKey(res.Params)}
			if base[k] == nil {
				baseOrder = append(baseOrder, k)
			}
			base[k] = res
		}
	}
	// One comparison: the baseline arm and a side per control's arm, one
	// Holm family over every arm's workloads.
	type arm struct {
		state string
		res   *run.Result
	}
	var arms []arm
	var states []string
	byState := map[string][]run.Result{}
	for i := range r.Results {
		res := &r.Results[i]
		st := StateOf(res)
		if st == "" || st == BaselineState {
			continue
		}
		k := key{res.Workload, run.ParamsKey(res.Params)}
		if _, ok := base[k]; !ok {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s %s with %s on has no baseline arm to compare with", k.id, k.params, st))
			continue
		}
		if byState[st] == nil {
			states = append(states, st)
		}
		byState[st] = append(byState[st], *res)
		arms = append(arms, arm{st, res})
	}
	side := func(name string, results []run.Result) compare.Side {
		one := &run.Run{Schema: r.Schema, ID: r.ID + "/" + name, Label: name, Env: r.Env, Results: results}
		return compare.RunsSide(name, compare.KindRun, []*run.Run{one}, nil)
	}
	var baseResults []run.Result
	for _, k := range baseOrder {
		baseResults = append(baseResults, *base[k])
	}
	var cmp *compare.Comparison
	for len(states) > 0 {
		sides := []compare.Side{side(BaselineState, baseResults)}
		for _, st := range states {
			sides = append(sides, side(st, byState[st]))
		}
		var err error
		if cmp, err = compare.CompareSides(sides, compare.Options{Alpha: rep.Alpha}); err == nil {
			break
		}
		var se *compare.SideError
		if !errors.As(err, &se) {
			return nil, err
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %v", se.Side, se.Err))
		states = slices.DeleteFunc(states, func(st string) bool { return st == se.Side })
		cmp = nil
	}
	if cmp == nil {
		return rep, nil
	}
	for _, a := range arms {
		si := slices.Index(states, a.state)
		if si < 0 {
			continue
		}
		row, err := probeRow(cmp.Comparisons[si], a.res, a.state)
		if err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s %s, %s: %v", a.res.Workload, run.ParamsKey(a.res.Params), a.state, err))
			continue
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

// probeRow reads one arm's workload from its side's report against the
// baseline arm.
func probeRow(cr *compare.Report, on *run.Result, state string) (ProbeRow, error) {
	pk := run.ParamsKey(on.Params)
	i := slices.IndexFunc(cr.Workloads, func(w compare.Workload) bool { return w.ID == on.Workload && w.ParamsKey == pk })
	if i < 0 || len(cr.Workloads[i].Metrics) == 0 {
		return ProbeRow{}, fmt.Errorf("no samples to compare")
	}
	m := cr.Workloads[i].Metrics[0]
	row := ProbeRow{Workload: on.Workload, ParamsKey: pk, Control: state,
		Metric: m.Name, Unit: m.Unit, Better: string(m.Better), Off: m.A, On: m.B,
		ChangePct: m.ChangePct, P: 1, PAdjusted: 1, Significant: m.Significant}
	for _, c := range on.SpecControls {
		if c.Control == state {
			row.State = c.Requested
			row.Verified = VerifiedText(c)
		}
	}
	if m.Test != nil {
		row.P = m.Test.P
		for _, w := range m.Test.Warnings {
			row.Warnings = append(row.Warnings, w.Message)
		}
	}
	if m.PAdjusted != nil {
		row.PAdjusted = *m.PAdjusted
	}
	// compare owns the interval (a probe's sides are one boot each: the
	// repetition is the unit).
	if iv := m.RatioInterval; iv != nil {
		l, h := iv.ChangePct()
		row.ChangePctInterval = &stats.Interval{Lo: l, Hi: h}
	}
	if math.IsNaN(row.ChangePct) {
		row.ChangePct = 0
	}
	return row, nil
}

// VerifiedText summarises what was verified of a control: "runner-thread
// 1 task, worker 1 process (5 tasks): thread force mitigated".
func VerifiedText(c run.SpecControl) string {
	var parts []string
	for _, v := range c.Verified {
		who := v.Role + " " + plural(v.Tasks, "task", "tasks")
		if v.Role == "worker" {
			who = v.Role + " " + plural(v.Processes, "process", "processes") + " (" + plural(v.Tasks, "task", "tasks") + ")"
		}
		parts = append(parts, who+": "+v.State)
	}
	if len(parts) == 0 {
		return "nothing verified"
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
