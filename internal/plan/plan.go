// Package plan decides what a run measures: it turns what the user asked
// for (a suite, workloads selected and skipped, parameter overrides,
// engines, repetitions) into the items a measure.Session measures, with the
// parameters resolved and checked against this machine. Every mistake in
// the request is a usage error (internal/exit).
package plan

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/perfbench"
	"github.com/sectax/sectax/internal/workload"
)

// DefaultTimeout is --timeout's default: a repetition running longer than
// this fails (run, attribute probes, and the runs of a lab or a campaign).
const DefaultTimeout = 10 * time.Minute

// MinTimeout is the shortest --timeout: starting a repetition (a worker
// process, a command) takes milliseconds, so less fails every one.
const MinTimeout = time.Second

// Request is what the user asked for; its fields are the flags of
// 'sectax run' of the same names, and its errors name those flags.
//
// The JSON form is how a campaign stores it and a lab guest receives it;
// the keys are those campaign plans have always been stored with.
type Request struct {
	Suite       string   `json:"suite"`
	Only        []string `json:"only,omitempty"`
	Skip        []string `json:"skip,omitempty"`
	Params      []string `json:"params,omitempty"` // --param ID.KEY=VALUE
	Repetitions int      `json:"runs,omitempty"`   // --runs: measured repetitions per workload (0: the suite's default)
	Warmup      int      `json:"warmup"`
	// Seed orders the repetitions (--seed; 0: random, recorded).
	Seed    int64         `json:"seed,omitempty"`
	CPUs    string        `json:"cpus,omitempty"` // --cpus LIST
	Timeout time.Duration `json:"timeout_ns,omitempty"`
	// Engines are the engines each workload runs with ("native",
	// "perf"); crosscheck asks for both.
	Engines []string `json:"engines,omitempty"`
	// Cmd is --cmd X, which is --only cmd --param cmd.cmd=X, and Prepare
	// its --prepare (which needs Cmd).
	Cmd     string `json:"cmd,omitempty"`
	Prepare string `json:"prepare,omitempty"`
	// Precision is --precision PCT, the stopping rule on the interval's
	// width: after the minimum (Repetitions, else MinPrecisionRepetitions)
	// a workload is repeated until its primary metric's 95% interval is
	// within ±PCT of its median, or MaxTime is up (0: the fixed count of
	// --runs). See docs/statistics.md.
	Precision float64 `json:"precision_pct,omitempty"`
	// MaxTime is --max-time: how long the precision rule may repeat
	// (0: DefaultMaxTime).
	MaxTime time.Duration `json:"max_time_ns,omitempty"`
	// DetectWarmup discards leading repetitions until the series shows
	// no trend (stats.DetectWarmup, at most MaxDetectedWarmup) instead
	// of the fixed Warmup; cli sets it under --precision when --warmup
	// is not typed.
	DetectWarmup bool `json:"warmup_detect,omitempty"`
	// Given names the flags typed on the command line (cli fills it):
	// an --only, --skip, --cmd or --prepare given empty, or --runs given
	// 0, would otherwise silently mean the default, and Check refuses
	// them.
	Given []string `json:"-"`
}

// Check refuses a request that cannot be planned, before anything is
// selected: every bound on what a user types (an empty list or command
// given, --runs 0 given, a negative or excessive count, a timeout that is
// not positive, --prepare without --cmd) is here, as a usage error naming
// the flag. It returns the suite the request names. Make calls it.
func (req Request) Check() (workload.Suite, error) {
	given := func(name string) bool { return slices.Contains(req.Given, name) }
	for _, l := range []struct {
		name string
		ids  []string
	}{{"only", req.Only}, {"skip", req.Skip}} {
		if (given(l.name) && len(l.ids) == 0) || slices.ContainsFunc(l.ids, func(id string) bool { return strings.TrimSpace(id) == "" }) {
			return "", exit.Usagef("--%s needs workload ids, comma-separated without empty ones, e.g. --%s sched-pipe,syscall-basic (see sectax workloads)", l.name, l.name)
		}
	}
	for _, c := range []struct{ name, v string }{{workload.CmdParamCmd, req.Cmd}, {workload.CmdParamPrepare, req.Prepare}} {
		if (given(c.name) || c.v != "") && strings.TrimSpace(c.v) == "" {
			return "", exit.Usagef("--%s is empty: give a command, e.g. --%s 'make -j16'", c.name, c.name)
		}
	}
	if given("runs") && req.Repetitions == 0 {
		return "", exit.Usagef("--runs 0 measures nothing: give 1 or more, or leave --runs out for the suite's default")
	}
	suite, err := workload.ParseSuite(req.Suite)
	if err != nil {
		return "", err
	}
	if req.Prepare != "" && req.Cmd == "" {
		return "", exit.Usagef("--prepare needs --cmd")
	}
	if req.Repetitions < 0 || req.Warmup < 0 {
		return "", exit.Usagef("--runs and --warmup must not be negative")
	}
	if err := CheckCounts(req.Repetitions, req.Warmup); err != nil {
		return "", err
	}
	if req.Timeout <= 0 {
		return "", exit.Usagef("--timeout must be positive, e.g. 10m")
	}
	if req.Timeout < MinTimeout {
		return "", exit.Usagef("--timeout %v fails every repetition before it starts: give %v or more, e.g. --timeout 10m", req.Timeout, MinTimeout)
	}
	if err := req.checkPrecision(given); err != nil {
		return "", err
	}
	return suite, nil
}

// Item is one workload with its parameters, measured Repetitions times.
type Item struct {
	Workload workload.Workload
	Params   workload.Params
	// Engine is recorded with the result ("native", "perf").
	Engine      string
	Repetitions int
}

// Plan is what a run will measure.
type Plan struct {
	// Request is what the plan was made from (its warm-up, seed, timeout
	// and counts are the run's).
	Request Request
	Suite   workload.Suite
	Items   []Item
	// Notes say what was skipped and why; the run records them.
	Notes []string
	// Perf is the perf bench engine when an engine is "perf".
	Perf *perfbench.Engine
	// CPUs is the parsed --cpus list (nil: no pinning).
	CPUs []int
}

// AlsoSplit adds, after each item of a loop-split workload
// (workload.LoopSplitter) at more loops than its split count, the same item
// at that count: the runner interleaves the two, and crosscheck splits the
// total into fixed and per-loop parts (compare.LoopParts).
func (p *Plan) AlsoSplit() {
	out := make([]Item, 0, len(p.Items)+2)
	for _, it := range p.Items {
		out = append(out, it)
		s, ok := it.Workload.(workload.LoopSplitter)
		if !ok || it.Params.Int("loops") <= s.SplitLoops() {
			continue
		}
		loops := s.SplitLoops()
		params := make(workload.Params, len(it.Params))
		for k, v := range it.Params {
			params[k] = v
		}
		params["loops"] = loops
		it.Params = params
		out = append(out, it)
	}
	p.Items = out
}

// Make plans req with the workloads of reg.
func Make(ctx context.Context, reg *workload.Registry, req Request) (*Plan, error) {
	suite, err := req.Check()
	if err != nil {
		return nil, err
	}
	if req.Cmd != "" {
		if !slices.Contains(req.Only, workload.CmdID) {
			req.Only = append(slices.Clip(req.Only), workload.CmdID)
		}
		req.Params = append(slices.Clip(req.Params), workload.CmdID+"."+workload.CmdParamCmd+"="+req.Cmd)
		if req.Prepare != "" {
			req.Params = append(req.Params, workload.CmdID+"."+workload.CmdParamPrepare+"="+req.Prepare)
		}
	}
	ws, err := reg.Select(req.Only, req.Skip)
	if err != nil {
		return nil, err
	}
	overrides, err := workload.ParseOverrides(reg, req.Params)
	if err != nil {
		return nil, err
	}
	for id := range overrides {
		if !slices.ContainsFunc(ws, func(w workload.Workload) bool { return w.Info().ID == id }) {
			return nil, exit.Usagef("--param names %s, which is not selected to run", id)
		}
	}
	pl := &Plan{Request: req, Suite: suite}
	if req.CPUs != "" {
		if pl.CPUs, err = CPUs(req.CPUs); err != nil {
			return nil, exit.Usagef("--cpus: %v", err)
		}
	}
	for _, e := range req.Engines {
		if err := exit.Choose("--engine", e, "native", "perf"); err != nil {
			return nil, err
		}
		if e == "perf" && pl.Perf == nil {
			if pl.Perf, err = perfbench.Find(ctx, ""); err != nil {
				return nil, err
			}
		}
	}
	named := func(id string) bool { return slices.Contains(req.Only, id) }
	for _, w := range ws {
		info := w.Info()
		ov := overrides[info.ID]
		if d, ok := w.(workload.PerfDefaulter); ok && pl.Perf != nil {
			// Both engines run what the installed perf runs (sched-pipe's
			// style), unless the user said otherwise.
			ov = withDefaults(ov, d.PerfDefaults(pl.Perf.PerfVersion()))
		}
		p, err := workload.Resolve(info, suite, ov)
		if err != nil {
			return nil, err
		}
		if av, ok := w.(workload.Availability); ok {
			if err := av.Available(p); err != nil {
				if named(info.ID) {
					return nil, exit.Wrap(exit.Usage, fmt.Errorf("%s: %w", info.ID, err))
				}
				pl.Notes = append(pl.Notes, fmt.Sprintf("skipped %s: %v", info.ID, err))
				continue
			}
		}
		reps := req.Repetitions
		if reps == 0 && req.Precision > 0 {
			reps = MinPrecisionRepetitions
		}
		if reps == 0 {
			reps = info.Repetitions[suite]
		}
		if reps == 0 {
			reps = DefaultRepetitions(suite)
		}
		for _, e := range req.Engines {
			wl := w
			if e == "perf" {
				if _, ok := w.(workload.PerfBencher); !ok {
					if named(info.ID) {
						return nil, exit.Usagef("%s has no perf bench equivalent; run it with --engine native", info.ID)
					}
					pl.Notes = append(pl.Notes, fmt.Sprintf("skipped %s: no perf bench equivalent", info.ID))
					continue
				}
				if wl, err = pl.Perf.Wrap(w); err != nil {
					return nil, err
				}
			}
			if pf, ok := wl.(workload.Preflighter); ok {
				if err := pf.Preflight(p); err != nil {
					return nil, err
				}
			}
			pl.Items = append(pl.Items, Item{Workload: wl, Params: p, Engine: e, Repetitions: reps})
		}
	}
	if len(pl.Items) == 0 {
		return nil, exit.Usagef("nothing to run: %s", strings.Join(pl.Notes, "; "))
	}
	return pl, nil
}

// The most measured and warm-up repetitions a run may ask for per
// workload. The runner's schedule holds one entry per repetition, so a
// count is bounded before anything is planned (a warm-up of 10^9 once
// grew the schedule to 24 GB); 10000 measured repetitions are far more
// than any interval needs.
const (
	MaxRepetitions = 10000
	MaxWarmup      = 1000
)

// CheckCounts refuses a count of repetitions (--runs) or warm-ups
// (--warmup) over its maximum, as a usage error naming it. Check calls
// it; so does everything that replays stored counts.
func CheckCounts(reps, warmup int) error {
	if reps > MaxRepetitions {
		return exit.Usagef("--runs %d: at most %d measured repetitions per workload", reps, MaxRepetitions)
	}
	if warmup > MaxWarmup {
		return exit.Usagef("--warmup %d: at most %d warm-up repetitions per workload", warmup, MaxWarmup)
	}
	return nil
}

// DefaultRepetitions is the number of measured repetitions of a suite: 6
// in quick (the fewest that give a 95% interval of the median), 10
// otherwise.
func DefaultRepetitions(s workload.Suite) int {
	if s == workload.Quick {
		return 6
	}
	return 10
}

// Repetitions is the number of measured repetitions a run records: the
// requested number, or the suite's default when none was requested.
func Repetitions(requested int, s workload.Suite) int {
	if requested == 0 {
		return DefaultRepetitions(s)
	}
	return requested
}

// withDefaults is m over defaults.
func withDefaults(m, defaults map[string]string) map[string]string {
	out := make(map[string]string, len(m)+len(defaults))
	maps.Copy(out, defaults)
	maps.Copy(out, m)
	return out
}
