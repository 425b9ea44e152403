package workload

import (
	"context"
	"github.com/sectax/sectax/internal/mitigation"
	"runtime"

	"golang.org/x/sys/unix"
	"time"
)

// SyscallBasic is `perf bench syscall basic`: a loop of getppid() system
// calls timed as one window. Every call enters and leaves the kernel, so it
// pays every entry/exit mitigation once.
type SyscallBasic struct{}

// Info implements Workload.
func (SyscallBasic) Info() Info {
	return Info{
		ID:    "syscall-basic",
		Title: "getppid() system call loop",
		Perf:  "perf bench syscall basic -l LOOPS",
		Stresses: Stress{Paths: []string{mitigation.TagEntryExit}, Note: "kernel entry/exit: PTI CR3 switch, BHI clearing, return thunks, VERW buffer clearing",
			Pays: "kernel entry and exit: paid on every getppid() call"},
		Params: []ParamSpec{{
			Key: "loops", Help: "getppid() calls per repetition",
			Default: int64(2_000_000), Quick: int64(1_000_000), Study: int64(10_000_000),
			Min: 1, Max: 1 << 40,
		}},
		Metrics: perOpMetrics("getppid() call"),
	}
}

// PerfArgs implements PerfBencher: perf bench syscall basic -l LOOPS.
func (SyscallBasic) PerfArgs(p Params, _ PerfVersion) ([]string, error) {
	loops, err := perfInt("syscall-basic", p, "loops")
	if err != nil {
		return nil, err
	}
	return []string{"bench", "syscall", "basic", "-l", loops}, nil
}

// PerfSample implements PerfBencher: perf's usecs/op and ops/sec.
func (SyscallBasic) PerfSample(p Params, o PerfOutput) (Sample, error) { return perfPerOp(p, o) }

// ProbeParams implements Prober: kernel entry and exit, at the suite's size.
func (SyscallBasic) ProbeParams() []map[string]string { return []map[string]string{nil} }

// Cost implements Estimator: 1.1 µs a call.
func (SyscallBasic) Cost(p Params) time.Duration { return perUnit(p.Int("loops"), 1.1e-6) }

// syscallChunk is how many calls run between two looks at the context.
const syscallChunk = 1 << 16

// Run implements Workload. The timed window is exactly perf's: the clock is
// read just before the first call and just after the last one, with one
// locked OS thread, garbage collection off and raw system calls.
func (SyscallBasic) Run(ctx context.Context, _ Env, p Params) (Sample, error) {
	loops := p.Int("loops")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer gcOff()()

	start := time.Now()
	for done := int64(0); done < loops; {
		n := min(loops-done, syscallChunk)
		for i := int64(0); i < n; i++ {
			// One assembly stub around SYSCALL, as glibc's inline getppid():
			// no wrapper frames, no errno handling (getppid cannot fail).
			unix.RawSyscallNoError(unix.SYS_GETPPID, 0, 0, 0)
		}
		done += n
		if done < loops && ctx.Err() != nil {
			return Sample{}, ctx.Err()
		}
	}
	elapsed := time.Since(start)
	return perOp(elapsed, loops), nil
}

// perOpMetrics are the metrics of perf's per-op benchmarks, in perf's
// names: microseconds per op (primary) and ops per second.
func perOpMetrics(op string) []MetricSpec {
	return []MetricSpec{
		{Name: "usecs_per_op", Unit: "µs/op", Better: "lower", Help: "microseconds per " + op},
		{Name: "ops_per_sec", Unit: "ops/s", Better: "higher", Help: op + "s per second"},
	}
}

// spawnParam chooses how process-mode workloads make their workers.
var spawnParam = ParamSpec{Key: "spawn",
	Help:    "process mode: fork (perf's way: forked copies of sectax running raw-syscall loops) or exec (re-executed Go worker processes)",
	Default: "fork", Choices: []string{"fork", "exec"}}

// perOp turns a timed window over loops operations into the usecs_per_op
// and ops_per_sec metrics.
func perOp(elapsed time.Duration, loops int64) Sample {
	secs := elapsed.Seconds()
	return Sample{Values: map[string]float64{
		"usecs_per_op": secs * 1e6 / float64(loops),
		"ops_per_sec":  float64(loops) / secs,
	}}
}
