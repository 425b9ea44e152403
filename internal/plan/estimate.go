package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/workload"
)

// unitCost is what one repetition of a workload costs, per unit of its
// size parameter, on the development machine (a shared 2-vCPU KVM guest:
// the medians of the README's quick run and of docs/benchmarks.md). A
// workload not listed costs fixedCost per repetition.
var unitCost = map[string]struct {
	param   string
	seconds float64
}{
	"syscall-basic":   {"loops", 1.1e-6},
	"sched-pipe":      {"loops", 20e-6},
	"sched-messaging": {"", 0}, // groups × loops, below
	"spawn":           {"loops", 1.4e-3},
	"file-churn":      {"files", 275e-6},
	"ctl-user":        {"loops", 1.9e-9},
	"ctl-vdso":        {"loops", 33e-9},
}

const (
	// repOverhead is each repetition's own cost beyond the workload's
	// loop: starting and reaping its workers, the sample's bookkeeping.
	repOverhead = 50 * time.Millisecond
	// startCost is a run's own start: the environment snapshot.
	startCost = 3 * time.Second
	// fixedCost is a repetition of a workload whose size is not known
	// (a --cmd).
	fixedCost = time.Second
	// messagingCost is one sender's loop of sched-messaging per group
	// (groups=5 loops=100: 0.65 s).
	messagingCost = 1.3e-3
	// goBuildStd is a clean go build -a std (or a module's ./...) on the
	// development machine; goBuildPackage one package pattern of a
	// smaller target (the quick suite's five: 1.5 s).
	goBuildStd     = 80 * time.Second
	goBuildPackage = 300 * time.Millisecond
)

// repetitionCost is the plan's figure for one repetition of id with p.
func repetitionCost(id string, p workload.Params) time.Duration {
	num := func(k string) float64 { return float64(p.Int(k)) }
	str := p.Str
	switch id {
	case "sched-messaging":
		return time.Duration(num("groups") * num("loops") * messagingCost * float64(time.Second))
	case "go-build":
		target := strings.Fields(str("target"))
		if str("dir") != "" || slices.Contains(target, "std") || slices.Contains(target, "all") {
			return goBuildStd
		}
		return time.Duration(max(len(target), 1)) * goBuildPackage
	}
	c, ok := unitCost[id]
	if !ok {
		return fixedCost
	}
	return time.Duration(num(c.param) * c.seconds * float64(time.Second))
}

// Estimate is how long a run of a plan is expected to take: from the
// plan (each workload's repetitions, warm-ups included, times its cost at
// its parameters), or, once this machine has stored runs of the same suite
// and engine, the median of their durations.
type Estimate struct {
	Duration time.Duration
	// Past is the number of stored runs the figure is the median of (0:
	// from the plan).
	Past int
	// Precision is the precision rule's target (0: a fixed count). Under
	// it Duration is the minimum's (every workload's minimum
	// repetitions) or the past runs' median, and Max the most the rule
	// may take (--max-time and the run's start): the total is not known
	// in advance.
	Precision float64
	Max       time.Duration
}

// Estimate is the expected duration of p with warmup warm-ups per
// workload; past are the durations of this machine's stored runs of the
// same suite and engine (none: the plan's figure).
//
// Under the precision rule (Request.Precision) the figure is that of the
// minimum (the plan's items hold it), or the past runs' median, never
// more than the rule's --max-time: the line says that the rule decides.
func (p *Plan) Estimate(warmup int, past []time.Duration) Estimate {
	var e Estimate
	if len(past) > 0 {
		s := slices.Clone(past)
		slices.Sort(s)
		m := s[len(s)/2]
		if len(s)%2 == 0 {
			m = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
		e = Estimate{Duration: m, Past: len(s)}
	} else {
		d := startCost
		for _, it := range p.Items {
			d += time.Duration(it.Repetitions+warmup) * (repetitionCost(it.Workload.Info().ID, it.Params) + repOverhead)
		}
		e = Estimate{Duration: d}
	}
	if req := p.Request; req.Precision > 0 {
		e.Precision, e.Max = req.Precision, startCost+req.MaxTimeOf()
		e.Duration = min(e.Duration, e.Max)
	}
	return e
}

// Times is e for n runs, each with overhead more (a boot, a reboot).
func (e Estimate) Times(n int, overhead time.Duration) Estimate {
	out := e
	out.Duration = time.Duration(n) * (e.Duration + overhead)
	if e.Max > 0 {
		out.Max = time.Duration(n) * (e.Max + overhead)
	}
	return out
}

// Basis says where the figure comes from: "from the plan" or "from 3
// past runs of this suite on this machine".
func (e Estimate) Basis() string {
	switch e.Past {
	case 0:
		return "from the plan"
	case 1:
		return "from 1 past run of this suite on this machine"
	}
	return fmt.Sprintf("from %d past runs of this suite on this machine", e.Past)
}

// String is the line said at the start of a run: "estimated 4 min (from
// the plan)".
// Under the precision rule: "estimated 40 s to 10 min (40 s from the
// plan at the minimum repetitions; the rule repeats until ±2% or
// --max-time)".
func (e Estimate) String() string {
	if e.Precision <= 0 {
		return "estimated " + Approx(e.Duration) + " (" + e.Basis() + ")"
	}
	what := "at the minimum repetitions"
	if e.Past > 0 {
		what = "the median"
	}
	d := min(e.Duration, e.Max) // --max-time bounds each run (a slower guest's too)
	return fmt.Sprintf("estimated %s to %s (%s %s, %s; the precision rule repeats each workload until ±%v%% or --max-time: the total is not known in advance)",
		Approx(d), Approx(e.Max), Approx(d), e.Basis(), what, e.Precision)
}

// Approx is a duration for people, to two figures at most: "42 s",
// "4 min", "2 h 05 min".
func Approx(d time.Duration) string {
	switch {
	case d < 90*time.Second:
		return fmt.Sprintf("%d s", max(int(d.Round(time.Second)/time.Second), 1))
	case d < 90*time.Minute:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
	}
	m := int(d.Round(time.Minute) / time.Minute)
	return fmt.Sprintf("%d h %02d min", m/60, m%60)
}
