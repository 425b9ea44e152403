package workload

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// CtlVDSO is a negative control: clock_gettime(CLOCK_MONOTONIC) through the
// vDSO, which reads the clock in user space without entering the kernel.
// Mitigations should not move it. Where the clock source has no vDSO fast
// path (some hypervisors), every call becomes a real system call; the
// workload then measures kernel time and says so in a warning.
type CtlVDSO struct{}

// ctlVDSOKernelShare is the share of system time above which ctl-vdso warns
// that its clock reads enter the kernel.
const ctlVDSOKernelShare = 0.25

// Info implements Workload.
func (CtlVDSO) Info() Info {
	return Info{
		ID:    "ctl-vdso",
		Title: "negative control: clock_gettime through the vDSO",
		Stresses: Stress{Control: true, Note: "negative control: no kernel entry (the vDSO reads the clock in user space); " +
			"only CPU frequency, host load and the clock source move it",
			Pays: "nothing: a negative control that reads the clock without entering the kernel"},
		Params: []ParamSpec{{
			Key: "loops", Help: "clock reads per repetition",
			Default: int64(20_000_000), Quick: int64(5_000_000), Min: 1, Max: 1 << 40,
		}},
		Metrics: []MetricSpec{
			{Name: "nsecs_per_op", Unit: "ns/op", Better: "lower", Help: "nanoseconds per clock_gettime(CLOCK_MONOTONIC)"},
		},
	}
}

// Cost implements Estimator: 33 ns a clock read.
func (CtlVDSO) Cost(p Params) time.Duration { return perUnit(p.Int("loops"), 33e-9) }

// ctlClockReads reads the monotonic clock n times. time.Since of a time
// with a monotonic reading is exactly one runtime nanotime call, that is one
// vDSO clock_gettime(CLOCK_MONOTONIC).
func ctlClockReads(t0 time.Time, n int64) time.Duration {
	var acc time.Duration
	for i := int64(0); i < n; i++ {
		acc += time.Since(t0)
	}
	return acc
}

// Run implements Workload: one locked thread, the read loop timed as one
// window, and the thread's system time compared with the window to catch a
// clock source without a vDSO path.
func (CtlVDSO) Run(ctx context.Context, _ Env, p Params) (Sample, error) {
	loops := p.Int("loops")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &before); err != nil {
		return Sample{}, fmt.Errorf("ctl-vdso: getrusage: %w", err)
	}
	start := time.Now()
	var acc time.Duration
	for done := int64(0); done < loops; {
		n := min(loops-done, ctlChunk)
		acc += ctlClockReads(start, n)
		done += n
		if done < loops && ctx.Err() != nil {
			return Sample{}, ctx.Err()
		}
	}
	elapsed := time.Since(start)
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &after); err != nil {
		return Sample{}, fmt.Errorf("ctl-vdso: getrusage: %w", err)
	}
	runtime.KeepAlive(acc) // the result is used: the compiler cannot remove the loop
	s := Sample{Values: map[string]float64{
		"nsecs_per_op": float64(elapsed.Nanoseconds()) / float64(loops),
	}}
	sys := time.Duration(after.Stime.Nano() - before.Stime.Nano())
	if w := ctlVDSOWarning(sys, elapsed); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
	return s, nil
}

// ctlVDSOWarning returns the warning for a read loop that spent sys of its
// elapsed time in the kernel, or "". Windows under 50 ms are too short for
// the tick-based accounting of system time.
func ctlVDSOWarning(sys, elapsed time.Duration) string {
	if elapsed < 50*time.Millisecond || float64(sys) <= ctlVDSOKernelShare*float64(elapsed) {
		return ""
	}
	return fmt.Sprintf("ctl-vdso spent %.0f%% of its time in the kernel: this clock source has no vDSO fast path "+
		"(see /sys/devices/system/clocksource/clocksource0/current_clocksource), so ctl-vdso is not a negative control here",
		100*float64(sys)/float64(elapsed))
}
