package plan

import (
	"math"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/workload"
)

// The precision rule's bounds (--precision, --max-time).
const (
	// MinPrecisionRepetitions is the fewest measured repetitions per
	// workload under --precision when --runs does not say: the fewest
	// that give a distribution-free 95% interval of the median (benchstat
	// asks for 6 too).
	MinPrecisionRepetitions = 6
	// DefaultMaxTime is how long --precision repeats when --max-time is
	// not given.
	DefaultMaxTime = 10 * time.Minute
	// MaxDetectedWarmup bounds the detected warm-up: at most this many
	// leading repetitions of a workload are discarded.
	MaxDetectedWarmup = 10
	// MinPrecision is the narrowest --precision (percent): below it no
	// run of a real machine ends on the target (a timer's resolution and
	// the machine's own drift are wider), and the report's two decimals
	// would show ±0.00%.
	MinPrecision = 0.1
	// MinMaxTime is the shortest --max-time: less holds no repetition of
	// any workload (the runner marks a workload that got none failed).
	MinMaxTime = time.Second
)

// checkPrecision refuses a --precision or --max-time that means nothing.
func (req Request) checkPrecision(given func(string) bool) error {
	p := req.Precision
	if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 || p > 100 || (given("precision") && p == 0) {
		return exit.Usagef("--precision %v: give the target half-width of the 95%% interval in percent of the median, above 0 and at most 100, e.g. --precision 2", p)
	}
	if p > 0 && p < MinPrecision {
		return exit.Usagef("--precision %v: the narrowest target is %v%% (a machine's drift is wider than that); give --precision %v or more, e.g. --precision 1", p, MinPrecision, MinPrecision)
	}
	if req.MaxTime < 0 || (given("max-time") && req.MaxTime == 0) {
		return exit.Usagef("--max-time %v: give a positive duration, e.g. --max-time 10m", req.MaxTime)
	}
	if req.MaxTime > 0 && req.MaxTime < MinMaxTime {
		return exit.Usagef("--max-time %v holds no repetition: give %v or more, e.g. --max-time 10m", req.MaxTime, MinMaxTime)
	}
	if req.MaxTime > 0 && p == 0 {
		return exit.Usagef("--max-time bounds the precision rule: add --precision PCT, or use --runs N for a fixed count")
	}
	return nil
}

// MaxTimeOf is the time the precision rule may take: req.MaxTime, or
// DefaultMaxTime when not given.
func (req Request) MaxTimeOf() time.Duration {
	if req.MaxTime > 0 {
		return req.MaxTime
	}
	return DefaultMaxTime
}

// RecordedRepetitions is the measured repetitions per workload a run
// records (its "runs"): --runs, else the precision rule's minimum under
// --precision, else the suite's default.
func (req Request) RecordedRepetitions(s workload.Suite) int {
	if req.Repetitions == 0 && req.Precision > 0 {
		return MinPrecisionRepetitions
	}
	return Repetitions(req.Repetitions, s)
}
