package cli

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/perfbench"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/runner"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/workload"
)

// runOptions are the flags of `sectax run` (and, in part, `crosscheck`).
type runOptions struct {
	label   string
	suite   string
	only    []string
	skip    []string
	runs    int
	warmup  int
	params  []string
	engine  string
	cpus    string
	noStore bool
	cmd     string
	prepare string
	seed    int64
	timeout time.Duration
}

func (o *runOptions) addSelectionFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.suite, "suite", "standard", "workload sizes: quick (about a minute), standard (10 samples), study (the study's exact parameters)")
	f.StringSliceVar(&o.only, "only", nil, "run only these workload `IDS` (comma-separated; see 'sectax workloads')")
	f.StringSliceVar(&o.skip, "skip", nil, "do not run these workload `IDS`")
	f.IntVar(&o.runs, "runs", 0, "measured repetitions per workload (default: 6 in quick, 10 otherwise)")
	f.IntVar(&o.warmup, "warmup", 1, "unmeasured repetitions per workload before the measured ones")
	f.StringArrayVar(&o.params, "param", nil, "override a parameter: `ID.KEY=VALUE` (repeatable), e.g. sched-pipe.mode=thread")
	f.StringVar(&o.cpus, "cpus", "", "pin the run and its children to this CPU `LIST` (e.g. 0 or 0-1,3)")
	f.Int64Var(&o.seed, "seed", 0, "seed of the shuffled repetition order (default: random, recorded in the run)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "a repetition running longer than this fails")
}

func newRunCmd(g *Globals) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the workloads and record every sample",
		Long: `Run the benchmark suite on this machine and record every sample with the
environment (kernel, command line, mitigation state).

Repetitions are interleaved: after the warm-up, every round runs each workload
once, in an order shuffled with a recorded seed, so that drift (CPU frequency,
host load) hits every workload alike. The table shows each metric's median
with its 95% confidence interval (min–max when there are too few samples for
one).

Run once per boot configuration, e.g. --label on with the default mitigations
and --label off after booting with mitigations=off, then compare the two.

Engines: native (default) runs sectax's own perf-faithful implementations;
perf runs the installed 'perf bench' with the same parameters (LC_ALL=C).

Progress with an ETA goes to stderr while stderr is a terminal. Ctrl-C stops
the run, prints what finished and exits with status 130.`,
		Example: `  sectax run --suite quick
  sectax run --label on
  sectax run --only sched-pipe --param sched-pipe.mode=thread --cpus 0
  sectax run --suite study --engine perf --format json -o run.json
  sectax run --cmd 'make -j16' --prepare 'make clean' --runs 5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRun(cmd.Context(), g, o) },
	}
	o.addSelectionFlags(cmd)
	cmd.Flags().StringVar(&o.label, "label", "", "label of the run, e.g. on or off (compare takes labels)")
	cmd.Flags().StringVar(&o.engine, "engine", "native", "native|perf")
	cmd.Flags().BoolVar(&o.noStore, "no-store", false, "do not record the run in the database")
	cmd.Flags().StringVar(&o.cmd, "cmd", "", "time this `COMMAND` like hyperfine (the cmd workload; alone unless --only names others)")
	cmd.Flags().StringVar(&o.prepare, "prepare", "", "with --cmd: run this `COMMAND` before every repetition, untimed (e.g. 'make clean')")
	addFormatFlag(cmd, g, "text", "text", "json")
	return cmd
}

// plan is what a run will measure.
type plan struct {
	suite workload.Suite
	items []runner.Item
	notes []string
	perf  *perfbench.Engine
	cpus  []int
}

// makePlan turns the flags into items: workloads selected, parameters
// resolved and checked, engines chosen. Every mistake is a usage error.
func makePlan(ctx context.Context, g *Globals, o *runOptions, engines []string) (*plan, error) {
	suite, err := workload.ParseSuite(o.suite)
	if err != nil {
		return nil, err
	}
	if o.runs < 0 || o.warmup < 0 {
		return nil, usagef("--runs and --warmup must not be negative")
	}
	if o.timeout <= 0 {
		return nil, usagef("--timeout must be positive, e.g. 10m")
	}
	reg := g.deps.Registry
	ws, err := reg.Select(o.only, o.skip)
	if err != nil {
		return nil, err
	}
	overrides, err := workload.ParseOverrides(reg, o.params)
	if err != nil {
		return nil, err
	}
	for id := range overrides {
		if !slices.ContainsFunc(ws, func(w workload.Workload) bool { return w.Info().ID == id }) {
			return nil, usagef("--param names %s, which is not selected to run", id)
		}
	}
	pl := &plan{suite: suite}
	if o.cpus != "" {
		if pl.cpus, err = runner.ParseCPUList(o.cpus); err != nil {
			return nil, usagef("--cpus: %v", err)
		}
	}
	for _, e := range engines {
		if e != "native" && e != "perf" {
			return nil, usagef("--engine %q is not accepted (accepted: native, perf)", e)
		}
		if e == "perf" && pl.perf == nil {
			if pl.perf, err = perfbench.Find(ctx, ""); err != nil {
				return nil, err
			}
		}
	}
	named := func(id string) bool { return slices.Contains(o.only, id) }
	for _, w := range ws {
		info := w.Info()
		ov := overrides[info.ID]
		if pl.perf != nil && info.ID == "sched-pipe" && ov["style"] == "" {
			// Both engines must run the semantics of the installed perf.
			ov = withDefault(ov, "style", pl.perf.PipeStyle())
		}
		p, err := workload.Resolve(info, suite, ov)
		if err != nil {
			return nil, err
		}
		if av, ok := w.(workload.Availability); ok {
			if err := av.Available(p); err != nil {
				if named(info.ID) {
					return nil, usageError{fmt.Errorf("%s: %w", info.ID, err)}
				}
				pl.notes = append(pl.notes, fmt.Sprintf("skipped %s: %v", info.ID, err))
				continue
			}
		}
		runs := o.runs
		if runs == 0 {
			runs = info.Runs[suite]
		}
		if runs == 0 {
			runs = defaultRuns(suite)
		}
		for _, e := range engines {
			wl := w
			if e == "perf" {
				if !perfbench.Supports(info.ID) {
					if named(info.ID) {
						return nil, usagef("%s has no perf bench equivalent; run it with --engine native", info.ID)
					}
					pl.notes = append(pl.notes, fmt.Sprintf("skipped %s: no perf bench equivalent", info.ID))
					continue
				}
				if wl, err = pl.perf.Wrap(w); err != nil {
					return nil, err
				}
			}
			if pf, ok := wl.(workload.Preflighter); ok {
				if err := pf.Preflight(p); err != nil {
					return nil, err
				}
			}
			pl.items = append(pl.items, runner.Item{Workload: wl, Params: p, Engine: e, Runs: runs})
		}
	}
	if len(pl.items) == 0 {
		return nil, usagef("nothing to run: %s", strings.Join(pl.notes, "; "))
	}
	return pl, nil
}

// defaultRuns is the number of measured repetitions of a suite: 6 in quick
// (the fewest that give a 95% interval of the median), 10 otherwise.
func defaultRuns(s workload.Suite) int {
	if s == workload.Quick {
		return 6
	}
	return 10
}

func withDefault(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

func runRun(ctx context.Context, g *Globals, o *runOptions) error {
	if err := checkFormat(g, "text", "json"); err != nil {
		return err
	}
	if o.prepare != "" && o.cmd == "" {
		return usagef("--prepare needs --cmd")
	}
	if o.cmd != "" {
		// --cmd X is --only cmd --param cmd.cmd=X.
		if !slices.Contains(o.only, "cmd") {
			o.only = append(o.only, "cmd")
		}
		o.params = append(o.params, "cmd.cmd="+o.cmd)
		if o.prepare != "" {
			o.params = append(o.params, "cmd.prepare="+o.prepare)
		}
	}
	pl, err := makePlan(ctx, g, o, []string{o.engine})
	if err != nil {
		return err
	}
	// One measurer at a time, stored or not: a second run would disturb
	// the first one's numbers.
	release, err := store.AcquireRunLock(g.DB)
	if err != nil {
		return err
	}
	defer release()
	ss := session{label: o.label, engine: o.engine, text: writeRunText}
	if !o.noStore {
		db, err := openStore(ctx, g, true)
		if err != nil {
			return err
		}
		defer db.Close()
		ss.sink = db
		ss.stored = func(r *run.Run) {
			g.notice("stored run %s in %s", r.ID, g.DB)
		}
	}
	return measure(ctx, g, o, pl, ss)
}

// session is what differs between the commands that measure.
type session struct {
	label, engine string
	// sink records the run as it goes (the store); nil records nothing.
	sink runner.Sink
	// text renders the result for --format text.
	text func(io.Writer, *run.Run) error
	// stored, when set, is told about the run once the sink has it all.
	stored func(*run.Run)
	// fill, when set, completes the run document before it starts (a
	// campaign sets its id, config and campaign blocks).
	fill func(*run.Run)
}

// measure runs a plan: it snapshots the environment, pins the CPUs, runs
// the repetitions with progress on a terminal, prints the run (also when it
// was interrupted, so that nothing finished is lost) and turns its status
// into the exit code.
func measure(ctx context.Context, g *Globals, o *runOptions, pl *plan, ss session) error {
	env, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	if pl.cpus != nil {
		if err := runner.SetAffinity(pl.cpus); err != nil {
			return usageError{fmt.Errorf("--cpus: %w", err)}
		}
	}
	seed := o.seed
	if seed == 0 {
		seed = randomSeed()
	}
	r := &run.Run{
		Schema: run.Schema, ID: g.deps.NewRunID(), Label: ss.label, Started: g.deps.Now().UTC(),
		Suite: string(pl.suite), Engine: ss.engine, ToolVersion: Version,
		Runs: effectiveRuns(o.runs, pl.suite), Warmup: o.warmup, Seed: seed, CPUs: o.cpus, Env: env,
		Notes:   pl.notes,
		Results: runner.NewResults(pl.items),
	}
	if pl.perf != nil {
		r.PerfVersion = pl.perf.Version
	}
	if ss.fill != nil {
		ss.fill(r)
	}
	for _, n := range pl.notes {
		g.notice("%s", n)
	}
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	prog := newProgress(g)
	runErr := runner.Run(ctx, r, pl.items, runner.Options{
		Warmup: o.warmup, Seed: seed, OnEvent: prog.event, Now: g.deps.Now, Sink: ss.sink,
		Env: workload.Env{Exe: g.deps.Exe, WorkerArgs: g.deps.WorkerArgs, Timeout: o.timeout},
	})
	prog.done()
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return finish(runErr)
	}
	if ss.stored != nil {
		ss.stored(r)
	}
	if g.Format == "json" {
		err = writeRunJSON(w, r)
	} else {
		err = ss.text(w, r)
	}
	if err = finish(err); err != nil {
		return err
	}
	if r.Status == run.StatusInterrupted {
		return &exitError{ExitInterrupted, fmt.Sprintf("interrupted: %s", countSamples(r))}
	}
	if r.Status == run.StatusFailed {
		return &exitError{ExitError, "some repetitions failed (see the failures above)"}
	}
	return nil
}

func countSamples(r *run.Run) string {
	n := 0
	for _, res := range r.Results {
		if len(res.Metrics) > 0 {
			n += len(res.Metrics[0].Samples)
		}
	}
	return fmt.Sprintf("%d samples of %d workloads finished and are shown above", n, len(r.Results))
}

func writeRunJSON(w io.Writer, r *run.Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// newRunID returns a sortable, unique run id: UTC time and random bits.
func newRunID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

func randomSeed() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// notice prints a line to stderr unless -q.
func (g *Globals) notice(format string, a ...any) {
	if !g.Quiet {
		fmt.Fprintf(g.stderr, "sectax: "+format+"\n", a...)
	}
}
