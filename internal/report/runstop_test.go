package report

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// TestRunTextPrecision: the run text says which workloads reached the
// precision target, which ran out of time or failed, and what would
// reach it (the repetitions the interval seems to need, ∝ 1/√n).
func TestRunTextPrecision(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	res := func(id string, xs []float64, s run.Stopping, discarded int) run.Result {
		return run.Result{Workload: id, Params: map[string]any{"loops": int64(1000)},
			Metrics:  []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}},
			Stopping: &s, WarmupDone: &run.WarmupRecord{Rule: run.WarmupDetect, Discarded: discarded}}
	}
	at := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	r := &run.Run{Schema: run.Schema, ID: "20261202T070000-000001", Started: at, Finished: at.Add(90 * time.Second),
		Status: run.StatusComplete, Suite: "standard", Engine: "native", Repetitions: 6,
		Results: []run.Result{
			res("ctl-user", slices.Repeat([]float64{1.9, 1.91, 1.89}, 4),
				run.Stopping{Rule: run.RulePrecision, TargetPct: pct(3), AchievedPct: pct(0.53), Reason: run.ReasonReached}, 0),
			res("sched-pipe", []float64{20, 24, 22, 19, 25, 21, 23, 22},
				run.Stopping{Rule: run.RulePrecision, TargetPct: pct(3), AchievedPct: pct(9.1), Reason: run.ReasonMaxTime}, 2),
			res("spawn", []float64{900, 1000, 1100},
				run.Stopping{Rule: run.RulePrecision, TargetPct: pct(3), Reason: run.ReasonMaxTime}, 1),
			res("file-churn", []float64{50, 60},
				run.Stopping{Rule: run.RulePrecision, TargetPct: pct(3), Reason: run.ReasonFailed}, 0),
		}}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := RunText(&b, r); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "run-precision.text"), b.Bytes())
	fitsWidths(t, "run", func(w io.Writer) error { return RunText(w, r) })
}
