package campaign

import (
	"context"

	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/workload"
)

// Runs is how a campaign measures the run of a step on this machine:
// through plan.Make and the measuring session of 'sectax run'
// (measure.Session), recorded in the campaign's store as it goes, its
// output on the engine's Printer.
type Runs struct {
	// Registry holds the workloads (workload.Default() when nil).
	Registry *workload.Registry
	// Version is the sectax that measures (the runs' tool version and
	// their environment's).
	Version string
	// Exe and WorkerArgs re-execute sectax as a worker (measure.Meta).
	Exe        string
	WorkerArgs []string

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
	s := measure.Session{Plan: pl, Past: past, Sink: store.NewRecorder(ctx, e.DB, e.out()), Meta: measure.Meta{Mark: measure.HostMark(e.Host.Root, m.RunID, e.out()),
		ID: m.RunID, Label: m.Label, Engine: "native", Version: rs.Version, Env: env, Config: m.Config, Campaign: m.Campaign,
		Exe: rs.Exe, WorkerArgs: rs.WorkerArgs, Now: e.Now}}
	_, err = s.Measure(ctx, e.out())
	return err
}
