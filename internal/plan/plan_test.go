package plan

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/perfbench"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

func request(only ...string) Request {
	return Request{Suite: "quick", Only: only, Warmup: 1, Timeout: time.Minute, Engines: []string{"native"}}
}

func TestMake(t *testing.T) {
	reg := workload.Default()
	pl, err := Make(context.Background(), reg, request("syscall-basic", "sched-pipe"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Items) != 2 || pl.Suite != workload.Quick || pl.Perf != nil || pl.CPUs != nil {
		t.Fatalf("plan %+v", pl)
	}
	for _, it := range pl.Items {
		if it.Engine != "native" || it.Repetitions != DefaultRepetitions(workload.Quick) {
			t.Errorf("%s: engine %s, %d repetitions", it.Workload.Info().ID, it.Engine, it.Repetitions)
		}
	}
	req := request("syscall-basic")
	req.Repetitions, req.CPUs = 3, "0"
	if pl, err = Make(context.Background(), reg, req); err != nil || pl.Items[0].Repetitions != 3 || len(pl.CPUs) != 1 {
		t.Fatalf("--runs 3 --cpus 0: %+v, %v", pl, err)
	}
	if Repetitions(0, workload.Standard) != 10 || Repetitions(4, workload.Standard) != 4 || Repetitions(0, workload.Quick) != 6 {
		t.Error("Repetitions")
	}
}

// TestMakeUsage: every mistake in the request is a usage error naming it.
func TestMakeUsage(t *testing.T) {
	for _, tt := range []struct {
		change func(*Request)
		want   string
	}{
		{func(r *Request) { r.Repetitions = -1 }, "--runs and --warmup must not be negative"},
		{func(r *Request) { r.Timeout = 0 }, "--timeout must be positive"},
		{func(r *Request) { r.Engines = []string{"gpu"} }, `--engine "gpu" is not accepted`},
		{func(r *Request) { r.Params = []string{"sched-pipe.loops=3"} }, "--param names sched-pipe, which is not selected"},
		{func(r *Request) { r.CPUs = "1-0" }, "--cpus: bad CPU range"},
		{func(r *Request) { r.Only = []string{"nope"} }, `unknown workload "nope"`},
		{func(r *Request) { r.Suite = "huge" }, `unknown suite "huge"`},
		{func(r *Request) { r.Repetitions = 1_000_000_000 }, "--runs 1000000000: at most 10000"},
		{func(r *Request) { r.Warmup = 1_000_000_000 }, "--warmup 1000000000: at most 1000"},
	} {
		req := request("syscall-basic")
		tt.change(&req)
		_, err := Make(context.Background(), workload.Default(), req)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exit.Of(err) != exit.Usage {
			t.Errorf("%+v: %v (kind %v), want a usage error containing %q", req, err, exit.Of(err), tt.want)
		}
	}
}

// TestPerfPipeStyle: with the perf engine, sched-pipe runs the semantics
// of the installed perf in both engines.
func TestPerfPipeStyle(t *testing.T) {
	req := request("sched-pipe")
	req.Engines = []string{"native", "perf"}
	pl, err := Make(context.Background(), workload.Default(), req)
	if errors.Is(err, perfbench.ErrNotFound) {
		testutil.Need(t, "no usable perf: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Items) != 2 || pl.Perf == nil {
		t.Fatalf("plan %+v", pl)
	}
	for _, it := range pl.Items {
		if got := it.Params.Str("style"); got != pl.Perf.PipeStyle() {
			t.Errorf("%s engine: style %q, want perf's %q", it.Engine, got, pl.Perf.PipeStyle())
		}
	}
}

// TestHugeCountsRefusedBeforeWork: a count far beyond the maximum is
// refused before anything is allocated for it; under a 256 MiB memory
// limit, planning --warmup 1000000000 (which grew to 24 GB) returns at once.
func TestHugeCountsRefusedBeforeWork(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	req := request("syscall-basic")
	req.Warmup, req.Repetitions = 1_000_000_000, 1_000_000_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Make(context.Background(), workload.Default(), req)
	runtime.ReadMemStats(&after)
	if exit.Of(err) != exit.Usage {
		t.Fatalf("%v: want a usage error", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Fatalf("planning allocated %d bytes", grew)
	}
}
