package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// stoppingText says, for a run measured under the precision rule, which
// workloads reached the target and which did not (out of time, failed,
// interrupted), with what would reach it: the repetitions its interval
// seems to need (stats.RepetitionsFor). It also says what a detected warm-up
// discarded. A run under the count rule gets nothing here.
func stoppingText(w io.Writer, r *run.Run) {
	var target float64
	var reached, short, warm []string
	for _, res := range r.Results {
		name := res.Workload
		if res.Engine != "" && res.Engine != r.Engine {
			name += " (" + res.Engine + ")"
		}
		if wd := res.WarmupDone; wd != nil && wd.Rule == run.WarmupDetect {
			warm = append(warm, fmt.Sprintf("%s %d", name, wd.Discarded))
		}
		s := res.Stopping
		if s == nil || s.Rule != run.RulePrecision || s.TargetPct == nil {
			continue
		}
		target = *s.TargetPct
		n := 0
		if p := firstSampled(res); p != nil {
			n = len(p.Samples)
		}
		if s.Reason == run.ReasonReached {
			reached = append(reached, fmt.Sprintf("%s (±%s after %d repetitions)", name, pctText(*s.AchievedPct), n))
			continue
		}
		what := fmt.Sprintf("no interval after %d repetitions: 6 give one", n)
		if s.AchievedPct != nil {
			need := stats.RepetitionsFor(n, *s.AchievedPct, target)
			what = fmt.Sprintf("±%s after %d repetitions; about %d would reach ±%s, %s as many", pctText(*s.AchievedPct), n, need, pctText(target), times(need, n))
		}
		short = append(short, fmt.Sprintf("%s: %s (%s)", reasonText(s.Reason), name, what))
	}
	if len(reached)+len(short) > 0 {
		fmt.Fprintln(w)
		writeWrapped(w, fmt.Sprintf("precision rule: each workload repeated until its primary metric's 95%% interval was within ±%s of its median", pctText(target)), "", "  ")
		if len(reached) > 0 {
			writeWrapped(w, fmt.Sprintf("reached ±%s: %s", pctText(target), strings.Join(reached, ", ")), "  ", "    ")
		}
		for _, s := range short {
			writeWrapped(w, s, "  ", "    ")
		}
		if len(short) > 0 {
			writeWrapped(w, "(an interval narrows about as 1/√n, so the time a workload needs grows as the square of the precision asked; more --max-time or a quieter machine reaches it, drift does not narrow)", "  ", "   ")
		}
	}
	if len(warm) > 0 {
		fmt.Fprintln(w)
		writeWrapped(w, "warm-up detected: leading repetitions discarded until the series showed no trend: "+strings.Join(warm, ", "), "", "  ")
	}
}

// firstSampled is the primary metric the rule judged: the first one
// with samples.
func firstSampled(res run.Result) *run.Metric {
	for i := range res.Metrics {
		if len(res.Metrics[i].Samples) > 0 {
			return &res.Metrics[i]
		}
	}
	return nil
}

// pctText is a half-width for people: "3%", "2.5%", "0.84%".
func pctText(p float64) string {
	prec := 0
	switch {
	case p < 1:
		prec = 2
	case p < 10 && p != float64(int(p)):
		prec = 1
	}
	return strconv.FormatFloat(p, 'f', prec, 64) + "%"
}

// reasonText heads the line of a workload that did not reach the target.
func reasonText(reason string) string {
	switch reason {
	case run.ReasonMaxTime:
		return "out of time (--max-time)"
	case run.ReasonMaxRuns:
		return "at the most repetitions a workload may have"
	case run.ReasonFailed:
		return "dropped after failures"
	}
	return reason
}

// times is need/n for people: "9×", "1.5×".
func times(need, n int) string {
	f := float64(need) / float64(max(n, 1))
	if f < 10 {
		return strconv.FormatFloat(f, 'f', 1, 64) + "×"
	}
	return strconv.FormatFloat(f, 'f', 0, 64) + "×"
}
