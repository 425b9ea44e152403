package compare

import (
	"math"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// The crosscheck model: sched-messaging's total time, measured by both
// engines at two loop counts, split into a fixed and a per-loop part.

// MessagingFixedLoops is the loop count at which crosscheck measures
// sched-messaging a second time, beside the loops asked for: total time
// at two loop counts gives its fixed part (what loops does not scale: the
// workers' start-up, exit and reaping) and its per-loop part.
const MessagingFixedLoops = 1

// PerLoopTolerance is how far the engines' per-loop parts of
// sched-messaging may differ (native/perf within 1 ± this) for the native
// engine to count as measuring what perf measures.
const PerLoopTolerance = 0.10

// Estimate is a value with its 95% interval (nil when there are too few
// samples for one).
type Estimate struct {
	Value    float64         `json:"value"`
	Interval *stats.Interval `json:"value_interval"`
}

// EngineParts is one engine's sched-messaging total time at loops L, and
// its fixed and per-loop parts: total(L) = fixed + L × per_loop.
type EngineParts struct {
	Total   Estimate `json:"total_s"`
	Fixed   Estimate `json:"fixed_s"`
	PerLoop Estimate `json:"per_loop_ms"`
}

// MessagingParts compares the engines' sched-messaging parts at one set of
// parameters. The per-loop ratio is the one that must agree; the fixed
// part of perf is larger by its workers' exit (glibc's exit() in a forked
// copy of perf: the destructors of its shared libraries, lazily bound),
// which perf's binary brings and no native worker can: PerfWorkerExit is
// that difference, measured.
type MessagingParts struct {
	Params       string      `json:"params"`
	Loops        int64       `json:"loops"`
	FixedLoops   int64       `json:"fixed_loops"`
	Native       EngineParts `json:"native"`
	Perf         EngineParts `json:"perf"`
	TotalRatio   Estimate    `json:"total_ratio"`
	PerLoopRatio Estimate    `json:"per_loop_ratio"`
	FixedRatio   Estimate    `json:"fixed_ratio"`
	// PerfWorkerExit is perf's fixed part minus native's, in seconds.
	PerfWorkerExit Estimate `json:"perf_worker_exit_s"`
	// PerLoopAgrees is |per_loop_ratio − 1| ≤ PerLoopTolerance;
	// TolerancePct is that tolerance in percent.
	PerLoopAgrees bool    `json:"per_loop_agrees"`
	TolerancePct  float64 `json:"tolerance_pct"`
	// PerLoopResolved is whether the per-loop ratio's interval lies
	// within 1 ± PerLoopTolerance: false means the measurement is too
	// noisy to tell agreement at this tolerance, whatever PerLoopAgrees
	// says of the point estimate.
	PerLoopResolved bool `json:"per_loop_resolved"`
}

// SchedMessagingParts pairs each sched-messaging result of r at loops L
// (other than MessagingFixedLoops) with the result of the same engine and
// other parameters at MessagingFixedLoops, for both engines, and splits
// the totals. Parameters without all four results are left out.
func SchedMessagingParts(r *run.Run) []MessagingParts {
	const wl = "sched-messaging"
	find := func(engine string, params map[string]any, loops int64) []float64 {
		p := make(map[string]any, len(params))
		for k, v := range params {
			p[k] = v
		}
		p["loops"] = loops
		key := run.ParamsKey(p)
		for i := range r.Results {
			res := &r.Results[i]
			if res.Engine == engine && res.Workload == wl && run.ParamsKey(res.Params) == key {
				if m := res.Metric("total_s"); m != nil {
					return m.Samples
				}
			}
		}
		return nil
	}
	var out []MessagingParts
	for i := range r.Results {
		res := &r.Results[i]
		loops := run.ParamInt(res.Params["loops"])
		if res.Engine != "native" || res.Workload != wl || loops <= MessagingFixedLoops {
			continue
		}
		nl, n1 := find("native", res.Params, loops), find("native", res.Params, MessagingFixedLoops)
		pl, p1 := find("perf", res.Params, loops), find("perf", res.Params, MessagingFixedLoops)
		if len(nl) == 0 || len(n1) == 0 || len(pl) == 0 || len(p1) == 0 {
			continue
		}
		L, F := float64(loops), float64(MessagingFixedLoops)
		slope := func(tl, t1 float64) float64 { return (tl - t1) / (L - F) }
		fixed := func(tl, t1 float64) float64 { return t1 - F*slope(tl, t1) }
		groups := [][]float64{nl, n1, pl, p1}
		boot := func(f func(m []float64) float64) Estimate {
			c, lo, hi, ok := stats.BootstrapMedians(groups, f)
			e := Estimate{Value: c}
			if ok {
				e.Interval = &stats.Interval{Lo: lo, Hi: hi}
			}
			return e
		}
		parts := func(tl, t1 []float64, a, b int) EngineParts {
			return EngineParts{
				Total:   medianEstimate(tl),
				Fixed:   boot(func(m []float64) float64 { return fixed(m[a], m[b]) }),
				PerLoop: boot(func(m []float64) float64 { return 1000 * slope(m[a], m[b]) }),
			}
		}
		mp := MessagingParts{Params: run.ParamsKey(res.Params), Loops: loops, FixedLoops: MessagingFixedLoops,
			Native: parts(nl, n1, 0, 1), Perf: parts(pl, p1, 2, 3), TolerancePct: 100 * PerLoopTolerance}
		mp.TotalRatio = boot(func(m []float64) float64 { return m[0] / m[2] })
		mp.PerLoopRatio = boot(func(m []float64) float64 { return slope(m[0], m[1]) / slope(m[2], m[3]) })
		mp.FixedRatio = boot(func(m []float64) float64 { return fixed(m[0], m[1]) / fixed(m[2], m[3]) })
		mp.PerfWorkerExit = boot(func(m []float64) float64 { return fixed(m[2], m[3]) - fixed(m[0], m[1]) })
		mp.PerLoopAgrees = math.Abs(mp.PerLoopRatio.Value-1) <= PerLoopTolerance
		if iv := mp.PerLoopRatio.Interval; iv != nil {
			mp.PerLoopResolved = iv.Lo >= 1-PerLoopTolerance && iv.Hi <= 1+PerLoopTolerance
		}
		out = append(out, mp)
	}
	return out
}

// medianEstimate is the median of xs with its order-statistic interval.
func medianEstimate(xs []float64) Estimate {
	st := stats.Summarize(xs)
	e := Estimate{Value: st.Center}
	if st.HasCI {
		e.Interval = &stats.Interval{Lo: st.Lo, Hi: st.Hi}
	}
	return e
}
