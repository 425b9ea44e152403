package attribute

import (
	"math"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

func TestStates(t *testing.T) {
	if s := States([]workload.SpecCtlOffer{{Control: "ssbd"}, {Control: "ib"}}); s != nil {
		t.Errorf("no control available: %+v", s)
	}
	got := States([]workload.SpecCtlOffer{{Control: "ssbd", Available: true}, {Control: "ib"}, {Control: "l1d_flush", Available: true}})
	var names []string
	for _, s := range got {
		var parts []string
		for _, x := range s.Settings {
			parts = append(parts, x.String())
		}
		names = append(names, s.Name+":"+strings.Join(parts, ","))
	}
	want := "baseline:ssbd=off,l1d_flush=off ssbd:ssbd=force,l1d_flush=off l1d_flush:ssbd=off,l1d_flush=on"
	if strings.Join(names, " ") != want {
		t.Errorf("States = %v, want %s", names, want)
	}
}

func specs(ssbd, ib string) []run.SpecControl {
	v := []run.SpecTasks{{Role: "runner-thread", Source: "/proc/PID/task/TID/status", State: "s", Processes: 1, Tasks: 1}}
	return []run.SpecControl{{Control: "ssbd", Requested: ssbd, Verified: v}, {Control: "ib", Requested: ib, Verified: v}}
}

func perOp(samples ...float64) []run.Metric {
	return []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: samples}}
}

func scaled(xs []float64, f float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * f
	}
	return out
}

// CraftedProbesRun is a probes run with known answers: ssbd costs exactly
// 20% on sched-pipe, ib nothing (the same samples, shuffled).
func CraftedProbesRun() *run.Run {
	base := []float64{10.0, 10.2, 9.9, 10.1, 10.3, 9.8, 10.05, 10.15}
	shuffled := []float64{10.15, 9.8, 10.3, 10.0, 10.05, 9.9, 10.2, 10.1}
	p := map[string]any{"loops": int64(1000), "mode": "process"}
	return &run.Run{Schema: run.Schema, ID: "20261130T090000-abcdef", Label: "probes", Results: []run.Result{
		{Workload: "sched-pipe", Params: p, Metrics: perOp(base...), SpecControls: specs("off", "off")},
		{Workload: "sched-pipe", Params: p, Metrics: perOp(scaled(base, 1.2)...), SpecControls: specs("force", "off")},
		{Workload: "sched-pipe", Params: p, Metrics: perOp(shuffled...), SpecControls: specs("off", "force")},
		{Workload: "syscall-basic", Params: map[string]any{"loops": int64(5)}, Metrics: perOp(1, 2, 3), SpecControls: specs("force", "off")},
		{Workload: "go-build", Params: map[string]any{}, Metrics: perOp(1, 2, 3)},
	}}
}

func TestProbeTaxes(t *testing.T) {
	offers := []workload.SpecCtlOffer{{Control: "ssbd", Available: true, Kernel: "prctl enable"}, {Control: "ib", Available: true, Kernel: "prctl enable"},
		{Control: "l1d_flush", Kernel: "force_disable", Reason: "PR_GET_SPECULATION_CTRL: force_disable, not prctl"}}
	rep, err := ProbeTaxes(CraftedProbesRun(), offers, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	ssbd, ib := rep.Rows[0], rep.Rows[1]
	if ssbd.Control != "ssbd" || ssbd.State != "force" || math.Abs(ssbd.ChangePct-20) > 1e-9 || ssbd.P > 0.001 || !ssbd.Significant {
		t.Errorf("ssbd row %+v", ssbd)
	}
	if ssbd.ChangePctInterval == nil || !(ssbd.ChangePctInterval.Lo <= 20 && 20 <= ssbd.ChangePctInterval.Hi) || ssbd.ChangePctInterval.Lo < 15 {
		t.Errorf("ssbd interval %v does not hold the true +20%% tightly", ssbd.ChangePctInterval)
	}
	if ib.Control != "ib" || ib.ChangePct != 0 || ib.Significant || ib.P < 0.9 {
		t.Errorf("ib row %+v", ib)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "syscall-basic loops=5 with ssbd on has no baseline arm") {
		t.Errorf("notes %q", rep.Notes)
	}
	if ssbd.Verified != "runner-thread 1 task: s" {
		t.Errorf("verified %q", ssbd.Verified)
	}
}

func TestStateOf(t *testing.T) {
	for _, tc := range []struct {
		sc   []run.SpecControl
		want string
	}{
		{nil, ""},
		{specs("off", "off"), BaselineState},
		{specs("on", "off"), "ssbd"},
		{specs("force", "force"), ""},
	} {
		if got := StateOf(&run.Result{SpecControls: tc.sc}); got != tc.want {
			t.Errorf("StateOf(%+v) = %q, want %q", tc.sc, got, tc.want)
		}
	}
}
