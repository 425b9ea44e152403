package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

func res(workload string, params map[string]any, metrics ...run.Metric) run.Result {
	return run.Result{Workload: workload, Params: params, Metrics: metrics}
}

func lower(name string, samples ...float64) run.Metric {
	return run.Metric{Name: name, Unit: "µs/op", Better: run.Lower, Samples: samples}
}

func higher(name string, samples ...float64) run.Metric {
	return run.Metric{Name: name, Unit: "ops/s", Better: run.Higher, Samples: samples}
}

func mkRun(id, label string, results ...run.Result) *run.Run {
	return &run.Run{Schema: run.Schema, ID: id, Label: label, Status: run.StatusComplete, Engine: "native",
		ToolVersion: "0.1.0", Started: time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC), Results: results}
}

func envOn() map[string]any {
	return map[string]any{
		"kernel":          map[string]any{"release": "6.18.0"},
		"cmdline":         map[string]any{"raw": "root=/dev/vda quiet"},
		"mitigation_mode": "on",
		"boot_id":         "boot-on-1",
		"hostname":        "box",
		"cpu":             map[string]any{"model_name": "Test CPU", "microcode": "0x10", "online": float64(4)},
		"vulnerabilities": []any{
			map[string]any{"name": "meltdown", "raw": "Mitigation: PTI", "state": "mitigated", "mitigation": "PTI"},
			map[string]any{"name": "spectre_v1", "raw": "Mitigation: usercopy/swapgs barriers", "state": "mitigated", "mitigation": "usercopy/swapgs barriers"},
			map[string]any{"name": "l1tf", "raw": "Not affected", "state": "not_affected"},
		},
	}
}

func envOff() map[string]any {
	e := envOn()
	e["cmdline"] = map[string]any{"raw": "root=/dev/vda quiet mitigations=off"}
	e["mitigation_mode"] = "off"
	e["boot_id"] = "boot-off-1"
	e["vulnerabilities"] = []any{
		map[string]any{"name": "meltdown", "raw": "Vulnerable", "state": "vulnerable"},
		map[string]any{"name": "spectre_v1", "raw": "Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers", "state": "vulnerable"},
		map[string]any{"name": "l1tf", "raw": "Not affected", "state": "not_affected"},
	}
	return e
}

func side(ref string, runs []*run.Run, envs ...map[string]any) Side {
	kind := KindRun
	if len(runs) > 1 {
		kind = KindLabel
	}
	return RunsSide(ref, kind, runs, envs)
}

func baselineSide(t *testing.T, name string) Side {
	t.Helper()
	d, err := baseline.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return BaselineSide(baseline.Prefix+name, d)
}

func findMetric(t *testing.T, rep *Report, workload, metric string) Metric {
	t.Helper()
	for _, w := range rep.Workloads {
		if w.ID == workload {
			for _, m := range w.Metrics {
				if m.Name == metric {
					return m
				}
			}
		}
	}
	t.Fatalf("no %s %s in the report", workload, metric)
	return Metric{}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestStudyBaselines reproduces the study's executive summary.
func TestStudyBaselines(t *testing.T) {
	rep, err := pair(baselineSide(t, "study-wsl3-on"), baselineSide(t, "study-wsl3-off"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		workload, metric, delta string
		speedup                 float64
	}{
		{"syscall-basic", "ops_per_sec", "+176.45%", 14798678.0 / 5353135},
		{"syscall-basic", "usecs_per_op", "−63.81%", 0.1868 / 0.0676},
		{"sched-pipe", "ops_per_sec", "+76.79%", 217736.0 / 123159},
		{"sched-messaging", "total_s", "−40.73%", 1.682 / 0.997},
		{"go-build", "sys_s", "−22.25%", 71.91 / 55.91},
	} {
		m := findMetric(t, rep, c.workload, c.metric)
		if d := stats.FormatPct(m.ChangePct); d != c.delta || !near(m.Speedup, c.speedup) || m.Verdict != VerdictUntested || m.Test != nil {
			t.Errorf("%s %s: change %s speedup %v verdict %s test %v; want %s %v untested",
				c.workload, c.metric, d, m.Speedup, m.Verdict, m.Test, c.delta, c.speedup)
		}
		if m.A.HasCI || m.B.HasCI || m.A.N != 1 || len(m.A.Warnings) != 0 {
			t.Errorf("%s %s: published figures got an interval or warnings: %+v", c.workload, c.metric, m.A)
		}
	}
	if got := findMetric(t, rep, "syscall-basic", "ops_per_sec").Speedup; math.Round(got*100)/100 != 2.76 {
		t.Errorf("syscall-basic speedup rounds to %.2f, want 2.76", got)
	}
	if diff := cmp.Diff([]string{"quiet", "loglevel=0", "audit=0", "mitigations=off", "vsyscall=none"}, rep.Env.CmdlineAdded); diff != "" {
		t.Errorf("cmdline added (-want +got):\n%s", diff)
	}
	if len(rep.Env.CmdlineRemoved) != 0 || len(rep.Env.Confounders) != 0 || len(rep.OnlyA)+len(rep.OnlyB) != 0 {
		t.Errorf("unexpected differences: %+v %+v %+v", rep.Env, rep.OnlyA, rep.OnlyB)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "published single figures carry no interval") {
		t.Errorf("notes = %q", rep.Notes)
	}
	for _, w := range rep.Warnings {
		t.Errorf("unexpected warning: %s", w.Message)
	}
	// Primary metrics: usecs 2.763, usecs 1.769, total_s 1.687, user_s 341/343.
	want := math.Pow((0.1868/0.0676)*(8.12/4.59)*(1.682/0.997)*(341.0/343), 0.25)
	if rep.Geomean == nil || rep.Geomean.N != 4 || !near(rep.Geomean.Speedup, want) {
		t.Errorf("geomean = %+v, want %v over 4", rep.Geomean, want)
	}
	if rep.A.Unit != "published figure" || !rep.A.Published || rep.A.Source == "" || rep.A.Kernel[0] != "6.18.40.1-microsoft-standard-WSL2" {
		t.Errorf("side A = %+v", rep.A)
	}
}

// TestWSL2ToWSL3 compares across study generations: only sched-pipe and
// go-build overlap, and the kernel release is a confounder.
func TestWSL2ToWSL3(t *testing.T) {
	rep, err := pair(baselineSide(t, "study-wsl2-on"), baselineSide(t, "study-wsl3-on"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Workloads) != 2 || len(rep.OnlyB) != 2 {
		t.Fatalf("workloads %d, only B %v", len(rep.Workloads), rep.OnlyB)
	}
	gb := rep.Workloads[1]
	if gb.ID != "go-build" || len(gb.Metrics) != 1 || gb.Metrics[0].Name != "sys_s" ||
		!cmp.Equal(gb.MetricsOnlyA, []string{"wall_s", "cpu_pct"}) || !cmp.Equal(gb.MetricsOnlyB, []string{"user_s"}) {
		t.Errorf("go-build = %+v", gb)
	}
	want := []Confounder{{Name: "kernel release", Path: "kernel.release", A: "6.6.87.2", B: "6.18.40.1-microsoft-standard-WSL2"}}
	if diff := cmp.Diff(want, rep.Env.Confounders); diff != "" {
		t.Errorf("confounders (-want +got):\n%s", diff)
	}
	if rep.Env.CmdlineKnown {
		t.Error("WSL2 command line is not published, yet known")
	}
	if !hasWarning(rep, "confounded", "besides the mitigations, kernel release differs") {
		t.Errorf("warnings = %+v", rep.Warnings)
	}
	if !hasWarning(rep, "same-mitigations", "both sides ran with mitigations on") {
		t.Errorf("warnings = %+v", rep.Warnings)
	}
}

func hasWarning(rep *Report, kind stats.Kind, text string) bool {
	for _, w := range rep.Warnings {
		if w.Kind == kind && strings.Contains(w.Message, text) {
			return true
		}
	}
	return false
}

// TestRunsSignificant: two single-boot runs, 6 samples each, fully
// separated: p = 2/C(12,6) = 2/924.
func TestRunsSignificant(t *testing.T) {
	p := map[string]any{"loops": int64(1000)}
	on := mkRun("on1", "on",
		res("syscall-basic", p, lower("usecs_per_op", 0.20, 0.21, 0.19, 0.20, 0.22, 0.20), higher("ops_per_sec", 5e6, 4.76e6, 5.26e6, 5e6, 4.55e6, 5e6)),
		res("ctl-user", map[string]any{"loops": int64(10)}, lower("usecs_per_op", 1.00, 1.01, 0.99, 1.00, 1.02, 1.00)),
		res("only-on", nil, lower("x", 1)))
	off := mkRun("off1", "off",
		res("syscall-basic", map[string]any{"loops": float64(1000)}, lower("usecs_per_op", 0.07, 0.068, 0.069, 0.07, 0.071, 0.07), higher("ops_per_sec", 1.43e7, 1.47e7, 1.45e7, 1.43e7, 1.41e7, 1.43e7)),
		res("ctl-user", map[string]any{"loops": int64(10)}, lower("usecs_per_op", 1.10, 1.11, 1.09, 1.10, 1.12, 1.10)))
	envB := envOff()
	envB["cpu"].(map[string]any)["microcode"] = "0x11"
	envA := envOn()
	envA["go_toolchain"] = "go1.26.8"
	envB["go_toolchain"] = "go1.27.3"
	rep, err := pair(side("on", []*run.Run{on}, envA), side("off", []*run.Run{off}, envB), Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	m := findMetric(t, rep, "syscall-basic", "usecs_per_op")
	if m.Test == nil || !near(m.Test.P, 2.0/924) || !m.Test.Significant || m.Verdict != VerdictBetter || stats.FormatPct(m.ChangePct) != "−65.00%" {
		t.Errorf("usecs_per_op = %+v %+v", m, m.Test)
	}
	if !m.A.HasCI || m.A.Center != 0.2 || m.A.Lo != 0.19 || m.A.Hi != 0.22 || m.B.Center != 0.07 {
		t.Errorf("summaries = %+v / %+v", m.A, m.B)
	}
	if !near(m.Speedup, 0.2/0.07) {
		t.Errorf("speedup = %v", m.Speedup)
	}
	ctl := findMetric(t, rep, "ctl-user", "usecs_per_op")
	if ctl.Verdict != VerdictWorse {
		t.Errorf("control verdict = %s", ctl.Verdict)
	}
	if len(rep.Controls) != 1 || rep.Controls[0].Workload != "ctl-user" || !near(rep.Controls[0].ChangePct, 10) ||
		!strings.Contains(rep.Controls[0].Message, "negative control ctl-user moved +10.00% in usecs_per_op (p=0.002)") ||
		!strings.Contains(rep.Controls[0].Message, "the comparison is confounded (CPU frequency, host load or different hardware)") {
		t.Errorf("controls = %+v", rep.Controls)
	}
	if rep.Geomean != nil {
		t.Errorf("geomean over one non-control workload: %+v", rep.Geomean)
	}
	if diff := cmp.Diff([]Unmatched{{ID: "only-on", Engine: "native"}}, rep.OnlyA); diff != "" {
		t.Errorf("only A (-want +got):\n%s", diff)
	}
	wantV := []VulnChange{
		{Name: "meltdown", A: "Mitigation: PTI", B: "Vulnerable", StateA: "mitigated", StateB: "vulnerable"},
		{Name: "spectre_v1", A: "Mitigation: usercopy/swapgs barriers", B: "Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers", StateA: "mitigated", StateB: "vulnerable"},
	}
	if diff := cmp.Diff(wantV, rep.Env.Vulnerabilities, cmpopts.IgnoreFields(VulnChange{}, "Explain", "OneLiner")); diff != "" {
		t.Errorf("vulnerabilities (-want +got):\n%s", diff)
	}
	if got := rep.Env.Vulnerabilities[0].String(); got != "meltdown: Mitigation: PTI → Vulnerable" {
		t.Errorf("String = %q", got)
	}
	if !cmp.Equal(rep.Env.CmdlineAdded, []string{"mitigations=off"}) || len(rep.Env.CmdlineRemoved) != 0 {
		t.Errorf("cmdline = %+v", rep.Env)
	}
	if diff := cmp.Diff([]Confounder{{Name: "microcode", Path: "cpu.microcode", A: "0x10", B: "0x11"},
		{Name: "Go toolchain (go-build)", Path: "go_toolchain", A: "go1.26.8", B: "go1.27.3"}}, rep.Env.Confounders); diff != "" {
		t.Errorf("confounders (-want +got):\n%s", diff)
	}
	for _, k := range []stats.Kind{KindOneBoot, KindConfounded, KindControlMoved} {
		if !hasWarning(rep, k, "") {
			t.Errorf("no %s warning in %+v", k, rep.Warnings)
		}
	}
	if hasWarning(rep, "same-mitigations", "") {
		t.Error("same-mitigations warning although mitigations changed")
	}
}

// TestPerBootMedians: a label of two boots per side uses one median per
// boot as its samples.
func TestPerBootMedians(t *testing.T) {
	p := map[string]any{"loops": int64(1)}
	mk := func(id, label string, xs ...float64) *run.Run {
		return mkRun(id, label, res("sched-pipe", p, lower("usecs_per_op", xs...)))
	}
	a := []*run.Run{mk("a1", "on", 8, 9, 10), mk("a2", "on", 11, 12, 13), mk("a3", "on", 7)}
	b := []*run.Run{mk("b1", "off", 4, 5, 6), mk("b2", "off", 3)}
	ea1, ea2, ea3 := envOn(), envOn(), envOn()
	ea2["boot_id"] = "boot-on-2"
	ea3["boot_id"] = "boot-on-2" // same boot as a2: pooled with it
	eb1, eb2 := envOff(), envOff()
	eb2["boot_id"] = "boot-off-2"
	rep, err := pair(side("on", a, ea1, ea2, ea3), side("off", b, eb1, eb2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := findMetric(t, rep, "sched-pipe", "usecs_per_op")
	// A: boot 1 median 9, boot 2 median of {11,12,13,7} = 11.5 → 10.25.
	// B: boot 1 median 5, boot 2 median 3 → 4.
	if m.A.N != 2 || m.A.Center != 10.25 || m.B.N != 2 || m.B.Center != 4 {
		t.Errorf("A %+v B %+v", m.A, m.B)
	}
	if rep.A.Unit != "boot" || rep.A.Boots != 2 || rep.B.Boots != 2 {
		t.Errorf("sides %+v %+v", rep.A, rep.B)
	}
	if m.Test.Significant || m.Verdict != VerdictSame || !hasWarning(rep, "few-samples-test", "need >= 4 samples to detect a difference at alpha level 0.05 (have n=2); with fewer the U test cannot reach significance however large the change; measure in more boots (reboot, run again with the same label) [sched-pipe usecs_per_op]") {
		t.Errorf("2+2 boots must not reach significance: %+v, %+v", m.Test, rep.Warnings)
	}
	if hasWarning(rep, "one-boot", "") {
		t.Error("one-boot warning with two boots per side")
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "on spans 2 boots: its samples are per-boot medians") {
		t.Errorf("notes = %q", rep.Notes)
	}
}

func TestErrors(t *testing.T) {
	r1 := mkRun("r1", "on", res("syscall-basic", nil, lower("usecs_per_op", 1)))
	r2 := mkRun("r2", "on", res("sched-pipe", nil, lower("usecs_per_op", 1)))
	_, err := pair(side("r1", []*run.Run{r1}), side("on", []*run.Run{r1}), Options{})
	if !errors.Is(err, ErrSameRun) || !strings.Contains(err.Error(), "the two sides are the same run (r1)") {
		t.Errorf("same run: %v", err)
	}
	_, err = pair(side("on", []*run.Run{r1, r2}), side("r2", []*run.Run{r2}), Options{})
	if !errors.Is(err, ErrRunOnTwoSides) || !strings.Contains(err.Error(), "run r2 is in both on and r2") {
		t.Errorf("overlap: %v", err)
	}
	_, err = pair(side("r1", []*run.Run{r1}), side("r2", []*run.Run{r2}), Options{})
	if !errors.Is(err, ErrNothingInCommon) || !strings.Contains(err.Error(), "(r1 has syscall-basic (engine native); r2 has sched-pipe (engine native))") {
		t.Errorf("nothing in common: %v", err)
	}
	r3 := mkRun("r3", "x", res("syscall-basic", nil, lower("usecs_per_op", 1)))
	r3.Engine = "perf"
	_, err = pair(side("r1", []*run.Run{r1}), side("r3", []*run.Run{r3}), Options{})
	if !errors.Is(err, ErrNothingInCommon) {
		t.Errorf("different engines matched: %v", err)
	}
	if _, err := pair(side("r1", []*run.Run{r1}), side("r3", []*run.Run{r3}), Options{Alpha: 2}); err == nil || !strings.Contains(err.Error(), "alpha 2 is out of range") {
		t.Errorf("alpha 2: %v", err)
	}
}

// TestUnknownEnvIsNoDifference: a path missing on one side is unknown, not
// a difference; runs without env at all still compare.
func TestUnknownEnvIsNoDifference(t *testing.T) {
	a := mkRun("a", "on", res("w", nil, lower("m", 5, 5, 5, 5)))
	b := mkRun("b", "off", res("w", nil, lower("m", 5, 5, 5, 5)))
	eb := envOff()
	delete(eb, "cpu")
	eb["kernel"] = map[string]any{"release": ""}
	rep, err := pair(side("on", []*run.Run{a}, envOn()), side("off", []*run.Run{b}, eb), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Env.Confounders) != 0 {
		t.Errorf("confounders from unknown values: %+v", rep.Env.Confounders)
	}
	// "unknown" mitigation mode and 0 online CPUs are the env's "could not
	// tell": not values to compare.
	ea, eb2 := envOn(), envOn()
	ea["mitigation_mode"], eb2["mitigation_mode"] = "unknown", "unknown"
	ea["cpu"].(map[string]any)["online"] = float64(0)
	eb2["boot_id"] = "other"
	rep, err = pair(side("on", []*run.Run{a}, ea), side("off", []*run.Run{b}, eb2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Env.Confounders) != 0 || hasWarning(rep, "same-mitigations", "") || len(rep.A.MitigationMode) != 0 {
		t.Errorf("unknown values compared: %+v %+v %+v", rep.Env.Confounders, rep.Warnings, rep.A)
	}
	rep, err = pair(side("on", []*run.Run{a}), side("off", []*run.Run{b}), Options{})
	if err != nil || rep.Env.CmdlineKnown || len(rep.Env.Vulnerabilities) != 0 {
		t.Errorf("no env: %+v, %v", rep, err)
	}
	if !hasWarning(rep, "test-failed", "all samples are equal") {
		t.Errorf("identical samples: %+v", rep.Warnings)
	}
}

func TestIncompleteRunWarned(t *testing.T) {
	a := mkRun("a", "on", res("w", nil, lower("m", 1, 2, 3, 4)))
	a.Status = run.StatusInterrupted
	b := mkRun("b", "off", res("w", nil, lower("m", 5, 6, 7, 8)))
	rep, err := pair(side("a", []*run.Run{a}), side("b", []*run.Run{b}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(rep, "incomplete-run", "run a (a) is interrupted: the samples it finished are used") {
		t.Errorf("warnings: %+v", rep.Warnings)
	}
}

// TestRunAgainstBaseline: the measured side keeps its warnings, the
// published side has none, and nothing is tested.
func TestRunAgainstBaseline(t *testing.T) {
	r := mkRun("mine", "on", res("syscall-basic", map[string]any{"loops": int64(10000000)},
		lower("usecs_per_op", 0.30, 0.31, 0.29), higher("ops_per_sec", 3.3e6, 3.2e6, 3.4e6)))
	rep, err := pair(baselineSide(t, "study-wsl3-on"), side("mine", []*run.Run{r}, envOn()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := findMetric(t, rep, "syscall-basic", "usecs_per_op")
	if m.Test != nil || m.Verdict != VerdictUntested || len(m.A.Warnings) != 0 || len(m.B.Warnings) != 1 || m.B.Warnings[0].Kind != "few-samples-ci" {
		t.Errorf("metric = %+v", m)
	}
	if !hasWarning(rep, "few-samples-ci", "[syscall-basic ops_per_sec (B), syscall-basic usecs_per_op (B)]") {
		t.Errorf("warnings = %+v", rep.Warnings)
	}
	if hasWarning(rep, "one-boot", "") {
		t.Error("one-boot warning against published figures")
	}
}

// TestZeroMedianJSON: a metric whose A median is 0 has no percentage
// change; the report still encodes, with null.
func TestZeroMedianJSON(t *testing.T) {
	a := mkRun("a", "on", res("cmd", nil, lower("nvcsw", 0, 0, 0, 0, 0, 1)))
	b := mkRun("b", "off", res("cmd", nil, lower("nvcsw", 3, 4, 3, 5, 4, 3)))
	rep, err := pair(side("a", []*run.Run{a}), side("b", []*run.Run{b}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if !strings.Contains(string(out), `"ratio_interval":null,"change_pct":null,"change_pct_interval":null,"speedup":0}`) {
		t.Errorf("JSON = %s", out)
	}
}

// TestOffToken: the "gives up" sentence uses the classifier's answer, not
// a guess from a "no" prefix, which had nosmt (which strengthens) giving
// protection up and missed tsx=on and kvm_intel.vmentry_l1d_flush=never.
func TestOffToken(t *testing.T) {
	for tok, want := range map[string]bool{
		"mitigations=off": true, "nopti": true, "spectre_v2=off": true,
		"nosmt": false, "tsx=on": true, "kvm_intel.vmentry_l1d_flush=never": true,
		"mitigations=auto,no_user_user": true, "nosmap": false, "spectre_v2=retpoline": false,
		"mitigations=auto": false, "pti=on": false,
	} {
		if got := offToken(tok); got != want {
			t.Errorf("offToken(%s) = %v, want %v", tok, got, want)
		}
	}
}

// controlRuns: syscall-basic moves by about 12% (significant), and a
// negative control that does not move, with the spread given.
func controlRuns(spread float64) (Side, Side) {
	p := map[string]any{"loops": int64(10)}
	ctl := func(base float64) []float64 {
		out := []float64{}
		for _, f := range []float64{-1, -0.6, -0.2, 0.2, 0.6, 1, -0.8, 0.8} {
			out = append(out, base*(1+spread*f))
		}
		return out
	}
	on := mkRun("on1", "on", res("syscall-basic", p, lower("usecs_per_op", 1.00, 1.01, 0.99, 1.00, 1.02, 1.00, 1.01, 0.99)),
		res("ctl-user", p, lower("usecs_per_op", ctl(1)...)))
	off := mkRun("off1", "off", res("syscall-basic", p, lower("usecs_per_op", 0.88, 0.89, 0.87, 0.88, 0.90, 0.88, 0.89, 0.87)),
		res("ctl-user", p, lower("usecs_per_op", ctl(1.001)...)))
	return side("on", []*run.Run{on}, envOn()), side("off", []*run.Run{off}, envOff())
}

// TestControlVouchesOnlyWhenItCouldSee: a quiet control vouches for a 12%
// change (it could have detected well under 12% with 80% power); one
// whose interval reaches ±43% is inconclusive, and says why.
func TestControlVouchesOnlyWhenItCouldSee(t *testing.T) {
	a, b := controlRuns(0.005)
	rep, err := pair(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := findMetric(t, rep, "syscall-basic", "usecs_per_op"); !m.Significant || math.Abs(m.ChangePct+12) > 0.01 {
		t.Fatalf("syscall-basic = %+v", m)
	}
	if len(rep.Controls) != 1 || rep.Controls[0].Status != ControlVouches || hasWarning(rep, KindControlInconclusive, "") ||
		!strings.Contains(rep.Controls[0].Message, "could have seen the smallest significant change reported, 12%") ||
		rep.Controls[0].DetectablePct == nil || *rep.Controls[0].DetectablePct >= 12 {
		t.Errorf("quiet control: %+v", rep.Controls)
	}
	a, b = controlRuns(0.5)
	rep, err = pair(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Controls[0]
	if c.Status != ControlInconclusive || c.HalfWidthPct == nil || *c.HalfWidthPct < 40 || c.NeededPct != 12.000000000000002 && math.Abs(c.NeededPct-12) > 1e-9 ||
		c.DetectablePct == nil || *c.DetectablePct <= 12 ||
		!strings.Contains(c.Message, "but it could not have seen less than ") || !strings.Contains(c.Message, "so it cannot vouch for the smallest significant change reported, 12%") ||
		!hasWarning(rep, KindControlInconclusive, "quiet the machine") {
		t.Errorf("noisy control: %+v %v", c, rep.Warnings)
	}
	// Per-boot medians of two boots have no interval: inconclusive.
	if halfWidthPct(Metric{A: stats.Summary{HasCI: false}, B: stats.Summary{HasCI: true}}) != math.Inf(1) {
		t.Error("no interval on a side is not ±∞")
	}
}

// TestZeroMedianControlJSON: a control whose A median is 0 has no
// percentage change; the report still encodes, with null.
func TestZeroMedianControlJSON(t *testing.T) {
	a := mkRun("a", "on", res("w", nil, lower("m", 1, 2, 3, 4, 5, 6)), res("ctl-x", nil, lower("n", 0, 0, 0, 0, 0, 0)))
	b := mkRun("b", "off", res("w", nil, lower("m", 7, 8, 9, 10, 11, 12)), res("ctl-x", nil, lower("n", 1, 2, 1, 2, 1, 2)))
	rep, err := pair(side("a", []*run.Run{a}), side("b", []*run.Run{b}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if len(rep.Controls) != 1 || !strings.Contains(string(out), `"change_pct":null`) {
		t.Errorf("controls %+v\n%s", rep.Controls, out)
	}
}

// TestBootInterval: with the boot as the unit on both sides, the ratio's
// interval is the Hodges-Lehmann interval of the per-boot medians (never
// of the pooled repetitions, which are no independent samples), and there
// is none with too few boots.
func TestBootInterval(t *testing.T) {
	p := map[string]any{"loops": int64(1)}
	sides := func(boots int) (Side, Side) {
		var a, b []*run.Run
		var ea, eb []map[string]any
		for i := 0; i < boots; i++ {
			f := 1 + float64(i)/100
			a = append(a, mkRun(fmt.Sprintf("a%d", i), "on", res("sched-pipe", p, lower("usecs_per_op", 10*f, 10*f, 30*f))))
			b = append(b, mkRun(fmt.Sprintf("b%d", i), "off", res("sched-pipe", p, lower("usecs_per_op", 5*f, 5*f, 1*f))))
			e, o := envOn(), envOff()
			e["boot_id"], o["boot_id"] = fmt.Sprintf("on-%d", i), fmt.Sprintf("off-%d", i)
			ea, eb = append(ea, e), append(eb, o)
		}
		return side("on", a, ea...), side("off", b, eb...)
	}
	a, b := sides(6)
	rep, err := pair(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := findMetric(t, rep, "sched-pipe", "usecs_per_op")
	if rep.A.Unit != "boot" || rep.B.Unit != "boot" || m.RatioInterval == nil {
		t.Fatalf("units %s/%s, interval %v", rep.A.Unit, rep.B.Unit, m.RatioInterval)
	}
	// Per-boot medians are 10·f and 5·f: every ratio is near 0.5 (the
	// pooled repetitions, with their 30s and 1s, would reach 0.03 and 3).
	if m.RatioInterval.Lo < 0.47 || m.RatioInterval.Hi > 0.53 || m.RatioInterval.Lo > 0.5 || m.RatioInterval.Hi < 0.5 {
		t.Errorf("interval %+v, want about 0.5 from the per-boot medians", *m.RatioInterval)
	}
	a, b = sides(2)
	if rep, err = pair(a, b, Options{}); err != nil {
		t.Fatal(err)
	}
	if m := findMetric(t, rep, "sched-pipe", "usecs_per_op"); m.RatioInterval != nil {
		t.Errorf("2+2 boots have an interval %+v", *m.RatioInterval)
	}
}

// pair compares b with the baseline a: the one Report of a comparison of
// two sides.
func pair(a, b Side, opt Options) (*Report, error) {
	c, err := CompareSides([]Side{a, b}, opt)
	if err != nil {
		return nil, err
	}
	return c.Comparisons[0], nil
}
