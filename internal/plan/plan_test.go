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
		// The lower bounds of what was typed, for every command that plans.
		{func(r *Request) { r.Given = []string{"runs"} }, "--runs 0 measures nothing"},
		{func(r *Request) { r.Only, r.Given = []string{}, []string{"only"} }, "--only needs workload ids"},
		{func(r *Request) { r.Only = []string{"syscall-basic", " "} }, "--only needs workload ids"},
		{func(r *Request) { r.Skip, r.Given = nil, []string{"skip"} }, "--skip needs workload ids"},
		{func(r *Request) { r.Given = []string{"cmd"} }, "--cmd is empty"},
		{func(r *Request) { r.Cmd, r.Prepare = "true", "  " }, "--prepare is empty"},
		{func(r *Request) { r.CPUs = "4000" }, "--cpus: CPU 4000 is not online"},
		// Values too small to mean anything (issue 36): ±0.00%, a run
		// with no sample, a timeout every repetition fails.
		{func(r *Request) { r.Precision, r.Given = 1e-320, []string{"precision"} }, "--precision 1e-320: the narrowest target is 0.1%"},
		{func(r *Request) { r.Precision = 0.05 }, "give --precision 0.1 or more"},
		{func(r *Request) { r.Precision, r.MaxTime = 2, time.Nanosecond }, "--max-time 1ns holds no repetition: give 1s or more"},
		{func(r *Request) { r.Timeout = time.Nanosecond }, "--timeout 1ns fails every repetition before it starts: give 1s or more"},
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
		if got, want := it.Params.Str("style"), (workload.SchedPipe{}).PerfDefaults(pl.Perf.PerfVersion())["style"]; got != want {
			t.Errorf("%s engine: style %q, want perf's %q", it.Engine, got, want)
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

// TestCmdRequest: --cmd X is --only cmd --param cmd.cmd=X (and
// cmd.prepare for --prepare); --prepare without --cmd is a usage error;
// the caller's slices are not written through.
func TestCmdRequest(t *testing.T) {
	req := request("syscall-basic")
	only := make([]string, 1, 8) // spare capacity: an append must not write into the caller's array
	only[0] = "syscall-basic"
	req.Only = only
	req.Cmd, req.Prepare = "true", "sleep 0"
	pl, err := Make(context.Background(), workload.Default(), req)
	if err != nil {
		t.Fatal(err)
	}
	var cmd *Item
	for i := range pl.Items {
		if pl.Items[i].Workload.Info().ID == "cmd" {
			cmd = &pl.Items[i]
		}
	}
	if len(pl.Items) != 2 || cmd == nil || cmd.Params.Str("cmd") != "true" || cmd.Params.Str("prepare") != "sleep 0" {
		t.Fatalf("--only syscall-basic --cmd true --prepare 'sleep 0': items %+v", pl.Items)
	}
	if got := only[:2][1]; got == "cmd" {
		t.Error("Make appended cmd into the caller's --only array")
	}
	req = request("syscall-basic")
	req.Prepare = "make clean"
	if _, err := Make(context.Background(), workload.Default(), req); err == nil || exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "--prepare needs --cmd") {
		t.Fatalf("--prepare without --cmd: %v", err)
	}
}

// TestAlsoSplit: each item of a loop-split workload at more loops than
// its split count gets a twin at that count right after it; other workloads
// and items already at the count are left.
func TestAlsoSplit(t *testing.T) {
	req := request("syscall-basic", "sched-messaging")
	pl, err := Make(context.Background(), workload.Default(), req)
	if err != nil {
		t.Fatal(err)
	}
	before := len(pl.Items)
	pl.AlsoSplit()
	var loops []int64
	for _, it := range pl.Items {
		if s, ok := it.Workload.(workload.LoopSplitter); ok {
			loops = append(loops, it.Params.Int("loops"), s.SplitLoops())
		}
	}
	if len(pl.Items) != before+1 || len(loops) != 4 || loops[0] <= loops[1] || loops[2] != loops[3] {
		t.Fatalf("after AlsoSplit: %d items (was %d), loops and split counts %v; want the item then its twin at the split count", len(pl.Items), before, loops)
	}
	pl.Items = pl.Items[len(pl.Items)-1:]
	pl.AlsoSplit()
	if len(pl.Items) != 1 {
		t.Errorf("AlsoSplit of an item at its split count added %d items", len(pl.Items)-1)
	}
}
