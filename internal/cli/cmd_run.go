package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/advise"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/workload"
)

// runOptions are the flags of `sectax run` (and, in part, `crosscheck`
// and `lab`): the plan.Request of measureFlags and hostFlags, and the run's
// own.
type runOptions struct {
	*plan.Request
	label   string
	engine  string
	noStore bool
	spec    []string
}

// measureFlags adds the flags that select and size the workloads
// (--suite, --only, --param, --runs, --warmup: every command that
// measures has them) to cmd and returns the request they fill, whose
// Given names the flags typed once cmd is about to run (plan.Request.Check
// refuses an empty list or --runs 0 typed).
func measureFlags(cmd *cobra.Command) *plan.Request {
	req := &plan.Request{}
	f := cmd.Flags()
	f.StringVar(&req.Suite, "suite", "standard", "workload sizes: quick (about a minute), standard (10 samples), study (the study's exact parameters)")
	f.StringSliceVar(&req.Only, "only", nil, "run only these workload `IDS` (comma-separated; see 'sectax workloads')")
	f.IntVar(&req.Repetitions, "runs", 0, "measured repetitions per workload (default: 6 in quick, 10 otherwise)")
	f.IntVar(&req.Warmup, "warmup", 1, "unmeasured repetitions per workload before the measured ones")
	f.StringArrayVar(&req.Params, "param", nil, "override a parameter: `ID.KEY=VALUE` (repeatable), e.g. sched-pipe.mode=thread")
	f.Var((*percent)(&req.Precision), "precision", "repeat each workload until its primary metric's 95% interval is within ±`PCT` of its median (at least --runs, default 6, repetitions; warm-up detected unless --warmup is given)")
	f.DurationVar(&req.MaxTime, "max-time", 0, "with --precision: stop repeating after this `DURATION`, keeping everything measured (default 10m)")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		for _, name := range []string{"only", "skip", workload.CmdParamCmd, workload.CmdParamPrepare, "runs", "precision", "max-time"} {
			if cmd.Flags().Changed(name) {
				req.Given = append(req.Given, name)
			}
		}
		// Under the precision rule the warm-up is detected, unless a
		// fixed one is asked for.
		req.DetectWarmup = cmd.Flags().Changed("precision") && !cmd.Flags().Changed("warmup")
	}
	return req
}

// hostFlags adds the flags of a run on this machine (--skip, --cpus,
// --seed, --timeout) to cmd, filling req.
func hostFlags(cmd *cobra.Command, req *plan.Request) {
	f := cmd.Flags()
	f.StringSliceVar(&req.Skip, "skip", nil, "do not run these workload `IDS`")
	f.StringVar(&req.CPUs, "cpus", "", "pin the run and its children to this CPU `LIST` (e.g. 0 or 0-1,3)")
	f.Int64Var(&req.Seed, "seed", 0, "seed of the shuffled repetition order (default: random, recorded in the run)")
	f.DurationVar(&req.Timeout, "timeout", plan.DefaultTimeout, "a repetition running longer than this fails")
}

func newRunCmd(g *Globals) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:  "run",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkLabel(o.label); err != nil {
				return err
			}
			return runRun(cmd.Context(), g, o)
		},
	}
	o.Request = measureFlags(cmd)
	hostFlags(cmd, o.Request)
	cmd.Flags().StringVar(&o.label, "label", "", "label of the run, e.g. on or off (compare takes labels)")
	cmd.Flags().StringVar(&o.engine, "engine", "native", "native|perf")
	cmd.Flags().BoolVar(&o.noStore, "no-store", false, "do not record the run in the database")
	cmd.Flags().StringSliceVar(&o.spec, "spec", nil, "apply per-task speculation controls to the workloads' threads and processes: `CONTROL=STATE` (ssbd=force|on|off, ib=force|on|off, l1d_flush=on|off; comma-separated, repeatable); exit 2 when the kernel does not offer one")
	cmd.Flags().StringVar(&o.Cmd, workload.CmdParamCmd, "", "time this `COMMAND` like hyperfine (the cmd workload; alone unless --only names others)")
	yesFlag(cmd, g)
	cmd.Flags().StringVar(&o.Prepare, workload.CmdParamPrepare, "", "with --cmd: run this `COMMAND` before every repetition, untimed (e.g. 'make clean')")
	addFormatFlag(cmd, report.RunFormats.List())
	return cmd
}

// checkLabel refuses a label the store would refuse on import (control
// characters that would reach terminals and Markdown raw, invalid UTF-8,
// the baseline: prefix, padding, more than the length limit): run owns the
// rule, so a run can always be exported and imported back.
func checkLabel(label string) error {
	if err := run.CheckLabel(label); err != nil {
		return usagef("--label: %v: choose another label, e.g. --label on", err)
	}
	return nil
}

// makePlan plans what req asks for with the given engines (plan.Make).
func makePlan(ctx context.Context, g *Globals, req *plan.Request, engines []string) (*plan.Plan, error) {
	r := *req
	r.Engines = engines
	return plan.Make(ctx, g.deps.Registry, r)
}

func runRun(ctx context.Context, g *Globals, o *runOptions) error {
	if filepath.Clean(g.Root) != "/" && !o.noStore {
		// The workloads measure this machine whatever --root says: a
		// stored run would pair these numbers with another tree's
		// environment and be compared as if measured there.
		return usagef("--root %s describes another machine but run measures this one, so the run would be stored with the wrong environment: drop --root to store it, or add --no-store to print it only", g.Root)
	}
	pl, err := makePlan(ctx, g, o.Request, []string{o.engine})
	if err != nil {
		return err
	}
	var env *sysinfo.Snapshot
	if len(o.spec) > 0 {
		if env, err = collectEnv(ctx, g); err != nil {
			return err
		}
		if err := attribute.ApplySpec(o.spec, env, pl); err != nil {
			return err
		}
	}
	// One measurer at a time, stored or not: a second run would disturb
	// the first one's numbers. The lock lives beside the store.
	rec, done, err := measureInto(ctx, g, o.noStore, o.label)
	if err != nil {
		return err
	}
	defer done()
	if env == nil {
		if env, err = collectEnv(ctx, g); err != nil {
			return err
		}
	}
	return measureHere(ctx, g, pl, g.runMeta(o.label, o.engine, env), rec, renderer(g, report.RunFormats))
}

// runMeta names a run measured on this machine in env.
func (g *Globals) runMeta(label, engine string, env *sysinfo.Snapshot) measure.Meta {
	m := measure.Meta{ID: g.deps.NewRunID(), Label: label, Engine: engine, Version: Version, Env: env,
		Exe: g.deps.Exe, WorkerArgs: g.deps.WorkerArgs, Now: g.deps.Now}
	if filepath.Clean(g.Root) == "/" { // a run printed under another --root has no mark
		m.Mark = measure.HostMark("/", m.ID, g.out)
	}
	if g.deps.Load != nil {
		m.Load = g.deps.Load(g.Root)
	}
	return m
}

// measureHere measures pl on this machine in one measuring session
// (measure.Session: estimate, notes, progress, the run laid out with show
// also when interrupted, its storing checked, its status the exit code).
// A run stored from 'sectax run' ends its text on stdout saying where it
// is and how it is named; a complete one on this machine then says what
// the other side of an on/off comparison needs.
func measureHere(ctx context.Context, g *Globals, pl *plan.Plan, meta measure.Meta, rec *store.Recorder, show func(io.Writer, *run.Run) error) error {
	p := g.laidOut(show)
	s := measure.Session{Plan: pl, Meta: meta, Past: pastRuns(ctx, g, pl, meta.Engine), Ask: true,
		NotesInResult: g.Format == "text" && g.Output == ""}
	if rec != nil {
		s.Sink = rec
	}
	r, err := s.Measure(ctx, p)
	if err != nil || r == nil {
		return err
	}
	if ref, _ := g.ref(); rec != nil && s.NotesInResult && !ref.IsURL() { // a spooled run is said on stderr once pushed
		fmt.Fprintf(g.stdout, "\n%s\n", report.Notice(measure.StoredLine(r.ID, r.Label, ref.String())))
	}
	// In a guest whose host sets its command line that is said where it
	// matters (advise, decide, campaign), not after every run.
	if r.Env != nil && r.Env.Live {
		if pf := advise.Probe("/", r.Env); advise.HostSetBy(r.Env, pf) == "" {
			if hint := advise.OtherSide(r.Env, pf); hint != "" {
				g.notice("%s", hint)
			}
		}
	}
	return nil
}

// newRunID and randomSeed name a run and seed its order (tests replace
// the id through Deps).
var newRunID, randomSeed = run.NewID, measure.RandomSeed

// notice prints a line to stderr unless -q (the one printer's Notef).
func (g *Globals) notice(format string, a ...any) { g.out.Notef(format, a...) }

// percent is a flag of a percentage: "3", "3%" and "±3%" are 3.
type percent float64

func (p *percent) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) }
func (p *percent) Type() string   { return "PCT" }
func (p *percent) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "±"), "%"), 64)
	if err != nil {
		return fmt.Errorf("give a percentage such as 3 or 3%%")
	}
	*p = percent(v)
	return nil
}
