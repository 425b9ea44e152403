package campaign

import (
	"context"
	"errors"
	"github.com/sectax/sectax/internal/hostid"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/workload"
)

// Runs is how a campaign measures the run of a step on this machine:
// through plan.Make and measure.Measure, as 'sectax run' does, recorded in
// the campaign's store as it goes.
type Runs struct {
	// Registry holds the workloads (workload.Default() when nil).
	Registry *workload.Registry
	// Version is the sectax that measures (the runs' tool version and
	// their environment's).
	Version string
	// Exe and WorkerArgs re-execute sectax as a worker (measure.Meta).
	Exe        string
	WorkerArgs []string
	// OnEvent, when set, is told of every repetition (progress).
	OnEvent func(measure.Event)
	// Show, when set, lays out a measured run (the CLI prints it).
	Show func(*run.Run) error

	// measure replaces all of the above in the tests of the engine on a
	// fake machine, which need runs that crash half-way or end failed.
	measure func(ctx context.Context, m Measurement) error
}

// measureRun measures m on this machine (the host root's environment)
// and stores it under m.RunID; a run the store could not take is written
// to a file (store.Recorder.Saved). Its error is the run's outcome
// (measure.Outcome).
func (e *Engine) measureRun(ctx context.Context, m Measurement) error {
	rs := e.Runs
	if rs.measure != nil {
		return rs.measure(ctx, m)
	}
	reg := rs.Registry
	if reg == nil {
		reg = workload.Default()
	}
	req := m.Options.Request
	req.Timeout, req.Engines = plan.DefaultTimeout, []string{"native"}
	pl, err := plan.Make(ctx, reg, req)
	if err != nil {
		return err
	}
	env, err := sysinfo.CollectAs(ctx, e.Host.Root, rs.Version)
	if err != nil {
		return err
	}
	past, _ := e.DB.PastRuns(ctx, sysinfo.Hostname(e.Host.Root), string(pl.Suite), "native", "")
	e.say("%s", pl.Estimate(pl.Request.Warmup, past))
	for _, n := range pl.Notes {
		e.say("%s", n)
	}
	rec := store.NewRecorder(ctx, e.DB, e.say)
	mark := ""
	if k, err := hostid.Of(e.Host.Root); err != nil {
		e.say("this host's key: %v; the run is stored without this host's mark, so decide leaves it out", err)
	} else {
		mark = k.Mark(m.RunID)
	}
	r, err := measure.Measure(ctx, pl, measure.Meta{Mark: mark,
		ID: m.RunID, Label: m.Label, Engine: "native", Version: rs.Version, Env: env, Config: m.Config, Campaign: m.Campaign,
		Exe: rs.Exe, WorkerArgs: rs.WorkerArgs, Now: e.Now, OnEvent: rs.OnEvent,
	}, rec)
	if r == nil || (err != nil && !errors.Is(err, context.Canceled)) {
		return err
	}
	if rs.Show != nil {
		err = rs.Show(r)
	}
	if serr := rec.Saved(r); serr != nil {
		if r.Status == run.StatusInterrupted {
			return exit.Wrap(exit.Interrupted, serr)
		}
		return exit.Wrap(exit.Runtime, serr)
	}
	if err != nil {
		return err
	}
	return measure.Outcome(r)
}
