package compare

import (
	"math"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/workload"
)

// The crosscheck model: a loop-split workload's total time (sched-messaging
// today: workload.LoopSplitter), measured by both engines at two loop
// counts, split into a fixed and a per-loop part.

// splitLoops is each loop-split workload's second loop count.
var splitLoops = workload.Default().Splitters()

// PerLoopTolerance is how far the engines' per-loop parts of a loop-split
// workload may differ (native/perf within 1 ± this) for the native
// engine to count as measuring what perf measures.
const PerLoopTolerance = 0.10

// Estimate is a value with its 95% interval (nil when there are too few
// samples for one).
type Estimate struct {
	Value    float64         `json:"value"`
	Interval *stats.Interval `json:"value_interval"`
}

// EngineParts is one engine's total time at loops L, and
// its fixed and per-loop parts: total(L) = fixed + L × per_loop.
type EngineParts struct {
	Total   Estimate `json:"total_s"`
	Fixed   Estimate `json:"fixed_s"`
	PerLoop Estimate `json:"per_loop_ms"`
}

// SplitParts compares the engines' parts of one loop-split workload at one
// set of parameters. The per-loop ratio is the one that must agree; the fixed
// part of perf is larger by its workers' exit (glibc's exit() in a forked
// copy of perf: the destructors of its shared libraries, lazily bound),
// which perf's binary brings and no native worker can: PerfWorkerExit is
// that difference, measured.
type SplitParts struct {
	Workload     string      `json:"workload"`
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

// LoopParts pairs each result of a loop-split workload in r at loops L
// (more than its split count F) with the result of the same workload,
// engine and other parameters at F, for both engines, and splits the
// totals. Parameters without all four results are left out.
func LoopParts(r *run.Run) []SplitParts {
	find := func(wl, engine string, params map[string]any, loops int64) []float64 {
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
	var out []SplitParts
	for i := range r.Results {
		res := &r.Results[i]
		wl := res.Workload
		loops, split := run.ParamInt(res.Params["loops"]), splitLoops[wl]
		if res.Engine != "native" || split == 0 || loops <= split {
			continue
		}
		nl, n1 := find(wl, "native", res.Params, loops), find(wl, "native", res.Params, split)
		pl, p1 := find(wl, "perf", res.Params, loops), find(wl, "perf", res.Params, split)
		if len(nl) == 0 || len(n1) == 0 || len(pl) == 0 || len(p1) == 0 {
			continue
		}
		L, F := float64(loops), float64(split)
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
		mp := SplitParts{Workload: wl, Params: run.ParamsKey(res.Params), Loops: loops, FixedLoops: split,
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
