package workload

import (
	"fmt"
	"strconv"
	"time"
)

// PerfBencher is implemented by a workload that `perf bench` can also run:
// it owns its perf equivalent, the arguments perf takes for its parameters
// and what perf's output means for its metrics. The perf engine
// (internal/perfbench) finds perf, runs it and parses its default output
// format; it asks the workload for everything else. A workload whose
// Info.Perf names a perf command implements it (a test checks).
type PerfBencher interface {
	// PerfArgs returns perf's arguments equivalent to p for the perf of
	// version v, or a usage error when that perf cannot do what p asks.
	PerfArgs(p Params, v PerfVersion) ([]string, error)
	// PerfSample maps what perf printed onto the workload's metrics,
	// checking that perf ran what p asked.
	PerfSample(p Params, o PerfOutput) (Sample, error)
}

// PerfDefaulter is implemented by a perf-bench workload whose parameters
// the installed perf decides for both engines unless the user sets them
// (sched-pipe's style): PerfDefaults returns them as --param values.
type PerfDefaulter interface {
	PerfDefaults(v PerfVersion) map[string]string
}

// PerfVersion is an installed perf's version ("perf version 6.1.187":
// Text, 6, 1).
type PerfVersion struct {
	Text         string
	Major, Minor int
}

// AtLeast reports whether v is major.minor or newer.
func (v PerfVersion) AtLeast(major, minor int) bool {
	return v.Major > major || (v.Major == major && v.Minor >= minor)
}

// PerfOutput is what one `perf bench` run printed in its default format,
// as internal/perfbench parses it.
type PerfOutput struct {
	Collection string // "syscall", "sched"
	Bench      string // "basic", "pipe", "messaging"
	// Executed is the loop count of syscall and pipe ("# Executed N …").
	Executed int64
	// Tasks is "processes" or "threads" (pipe, messaging).
	Tasks string
	// Groups and Workers are messaging's "# G groups == W … run".
	Groups, Workers int64
	// TotalSec is "Total time", milliseconds truncated by perf.
	TotalSec float64
	// UsecsPerOp and OpsPerSec are syscall's and pipe's per-op lines; NaN
	// when perf printed nan (zero loops) or did not print them.
	UsecsPerOp float64
	OpsPerSec  float64
}

// perfInt is the integer parameter key of workload id as a perf option's
// value: perf reads options into a C int, so a larger value is a usage
// error naming the bound.
func perfInt(id string, p Params, key string) (string, error) {
	n := p.Int(key)
	if n > 1<<31-1 {
		return "", &UsageError{Msg: fmt.Sprintf("%s.%s=%d is more than perf accepts (at most 2147483647)", id, key, n)}
	}
	return strconv.FormatInt(n, 10), nil
}

// perfPerOp is the sample of perf's per-op benchmarks (syscall basic,
// sched pipe): perf must have executed the loops asked for.
func perfPerOp(p Params, o PerfOutput) (Sample, error) {
	if o.Executed != p.Int("loops") {
		return Sample{}, fmt.Errorf("perf executed %d loops, asked %d", o.Executed, p.Int("loops"))
	}
	return Sample{Values: map[string]float64{"usecs_per_op": o.UsecsPerOp, "ops_per_sec": o.OpsPerSec}}, nil
}

// Estimator is implemented by every built-in workload (a test checks): Cost
// is what one repetition at p takes on the development machine (a shared
// 2-vCPU KVM guest: the medians of the README's quick run and of
// docs/benchmarks.md). internal/plan adds each repetition's overhead and
// scales the sum by this machine's stored runs. 0 is "not known before
// it runs" (a command's, whose stress Varies): only past runs of the same
// work estimate it.
type Estimator interface {
	Cost(p Params) time.Duration
}

// perUnit is n units at seconds each.
func perUnit(n int64, seconds float64) time.Duration {
	return time.Duration(float64(n) * seconds * float64(time.Second))
}

// LoopSplitter is implemented by a perf-bench workload whose total time is
// a fixed part (its workers' start-up, exit and reaping: what loops does
// not scale) plus a per-loop part. Crosscheck measures it a second time at
// SplitLoops loops, interleaved, and compares the engines' per-loop parts,
// which must agree; the fixed parts may not (perf's forked workers exit
// through glibc, which no native worker can).
type LoopSplitter interface {
	SplitLoops() int64
}
