package report

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// crosscheckRun is a crosscheck of sched-messaging at loops 100 and 1 with
// both engines: native 0.10 s fixed + 4.5 ms a loop, perf 0.80 s fixed +
// 4.6 ms a loop (the figures of this machine, issue 20), and syscall-basic.
func crosscheckRun() *run.Run {
	t0 := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	msg := func(engine string, loops int64, fixed, perLoop float64) run.Result {
		jitter := []float64{1, 1.02, 0.98, 1.01, 0.99, 1.03}
		var total, work []float64
		for _, j := range jitter {
			total = append(total, (fixed+float64(loops)*perLoop)*j)
			work = append(work, (0.9*fixed+float64(loops)*perLoop)*j)
		}
		res := run.Result{Workload: "sched-messaging", Engine: engine,
			Params:  map[string]any{"groups": int64(5), "loops": loops, "ipc": "socket", "mode": "process", "spawn": "fork"},
			Metrics: []run.Metric{metric("total_s", "s", run.Lower, total...)}}
		if engine == "native" {
			res.Metrics = append(res.Metrics, metric("work_s", "s", run.Lower, work...))
		}
		return res
	}
	return &run.Run{Schema: run.Schema, ID: "crosscheck", Label: "crosscheck", Started: t0, Finished: t0.Add(time.Minute),
		Status: run.StatusComplete, Suite: "quick", Engine: "native+perf", ToolVersion: "0.1.0", Repetitions: 6, Seed: 1,
		PerfVersion: "perf version 6.1.192",
		Results: []run.Result{
			{Workload: "syscall-basic", Engine: "native", Params: map[string]any{"loops": int64(1000000)}, Metrics: []run.Metric{
				metric("usecs_per_op", "µs/op", run.Lower, 1.2, 1.21, 1.19, 1.2, 1.22, 1.2)}},
			{Workload: "syscall-basic", Engine: "perf", Params: map[string]any{"loops": int64(1000000)}, Metrics: []run.Metric{
				metric("usecs_per_op", "µs/op", run.Lower, 1.25, 1.24, 1.26, 1.25, 1.27, 1.25)}},
			msg("native", 100, 0.10, 0.0045), msg("native", 1, 0.10, 0.0045),
			msg("perf", 100, 0.80, 0.0046), msg("perf", 1, 0.80, 0.0046),
		}}
}

// TestCrosscheckGolden: the crosscheck text and JSON split sched-messaging's
// totals into fixed and per-loop parts with intervals and name perf's
// worker exit by its size.
func TestCrosscheckGolden(t *testing.T) {
	r := crosscheckRun()
	var txt bytes.Buffer
	if err := CrosscheckText(&txt, r); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "crosscheck.txt"), txt.Bytes())
	fitsWidths(t, "crosscheck", func(w io.Writer) error { return CrosscheckText(w, r) })
	var js bytes.Buffer
	if err := CrosscheckJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "crosscheck.json"), js.Bytes())

	var doc struct {
		ID    string               `json:"id"`
		Parts []compare.SplitParts `json:"sched_messaging_parts"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ID != "crosscheck" || len(doc.Parts) != 1 {
		t.Fatalf("JSON: id %q, %d parts; want the run document and one part", doc.ID, len(doc.Parts))
	}
	p := doc.Parts[0]
	near := func(what string, got, want float64) {
		t.Helper()
		if got < want*0.98 || got > want*1.02 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	near("native fixed_s", p.Native.Fixed.Value, 0.10)
	near("perf fixed_s", p.Perf.Fixed.Value, 0.80)
	near("native per_loop_ms", p.Native.PerLoop.Value, 4.5)
	near("perf per_loop_ms", p.Perf.PerLoop.Value, 4.6)
	near("perf_worker_exit_s", p.PerfWorkerExit.Value, 0.70)
	if !p.PerLoopAgrees || !p.PerLoopResolved || p.PerLoopRatio.Interval == nil || p.PerfWorkerExit.Interval == nil {
		t.Errorf("per-loop ratio %+v (agrees %v), worker exit %+v: want agreement and intervals", p.PerLoopRatio, p.PerLoopAgrees, p.PerfWorkerExit)
	}
}

// TestCrosscheckPartsNeedAllFour: without the loops=1 results of both
// engines there are no parts (a crosscheck of older sectax).
func TestCrosscheckPartsNeedAllFour(t *testing.T) {
	r := crosscheckRun()
	r.Results = r.Results[:5] // drop perf at loops=1
	if parts := compare.LoopParts(r); len(parts) != 0 {
		t.Fatalf("parts without perf at loops=1: %+v", parts)
	}
}
