package workload

import (
	"context"
	"runtime"
	"time"
)

// CtlUser is a negative control: a pure user-space integer loop that never
// enters the kernel. Mitigations should not move it; when a comparison finds
// it changed, something else differs between the two sides (CPU frequency,
// turbo, host load, different hardware), and every other result is
// confounded by as much.
type CtlUser struct{}

// ctlChunk is how many iterations run between two looks at the context.
const ctlChunk = 1 << 20

// Info implements Workload.
func (CtlUser) Info() Info {
	return Info{
		ID:    "ctl-user",
		Title: "negative control: integer hash loop in user space",
		Stresses: Stress{Control: true, Note: "negative control: no kernel entry, no memory traffic; only CPU frequency, turbo and host load move it",
			Pays: "nothing: a negative control that never enters the kernel"},
		Params: []ParamSpec{{
			Key: "loops", Help: "hash iterations per repetition",
			Default: int64(200_000_000), Quick: int64(50_000_000), Min: 1, Max: 1 << 40,
		}},
		Metrics: []MetricSpec{
			{Name: "nsecs_per_op", Unit: "ns/op", Better: "lower", Help: "nanoseconds per hash iteration"},
		},
	}
}

// Cost implements Estimator: 1.9 ns a loop.
func (CtlUser) Cost(p Params) time.Duration { return perUnit(p.Int("loops"), 1.9e-9) }

// ctlHash runs n rounds of a multiply-xorshift hash, each depending on the
// previous one, so that the loop is bound by the multiplier's latency.
func ctlHash(x uint64, n int64) uint64 {
	for i := int64(0); i < n; i++ {
		x = x*0x9e3779b97f4a7c15 + uint64(i)
		x ^= x >> 29
	}
	return x
}

// Run implements Workload: one locked thread, the hash loop timed as one
// window.
func (CtlUser) Run(ctx context.Context, _ Env, p Params) (Sample, error) {
	loops := p.Int("loops")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	x := uint64(loops) | 1
	start := time.Now()
	for done := int64(0); done < loops; {
		n := min(loops-done, ctlChunk)
		x = ctlHash(x, n)
		done += n
		if done < loops && ctx.Err() != nil {
			return Sample{}, ctx.Err()
		}
	}
	elapsed := time.Since(start)
	runtime.KeepAlive(x) // the result is used: the compiler cannot remove the loop
	return Sample{Values: map[string]float64{
		"nsecs_per_op": float64(elapsed.Nanoseconds()) / float64(loops),
	}}, nil
}
