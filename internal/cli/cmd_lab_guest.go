package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/runner"
	"github.com/sectax/sectax/internal/workload"
)

// labGuestMain is sectax as the /init of a `sectax lab` guest. It does not
// return: the guest powers off.
func labGuestMain() {
	lab.RegisterTask(lab.MeasureTask, guestMeasure)
	lab.RegisterTask(labSnapshotTask, guestSnapshot)
	lab.GuestMain()
}

// labSnapshotTask is the guest task of the probe boot of `sectax lab
// --plan`: report the guest kernel's environment snapshot, measure nothing.
const labSnapshotTask = "snapshot"

// guestSnapshot returns the guest's environment snapshot as JSON: the
// plan of an attribution is made from the guest kernel's own vulnerability
// files, not the host's.
func guestSnapshot(ctx context.Context, guest *lab.Guest) ([]byte, error) {
	g := &Globals{Root: "/", deps: Deps{Registry: workload.Default(), Now: time.Now}}
	env, err := collectEnv(ctx, g)
	if err != nil {
		return nil, err
	}
	guest.Logf("snapshot of kernel %s, command line %q", env.Kernel.Release, strings.TrimSpace(env.Cmdline.Raw))
	return json.Marshal(env)
}

// guestMeasure is the measure task: verify this boot against its
// configuration (a boot that does not verify is never measured), run the
// suite with the same planning and runner as `sectax run`, and return the
// run document.
func guestMeasure(ctx context.Context, guest *lab.Guest) ([]byte, error) {
	var in lab.MeasureInput
	if err := json.Unmarshal(guest.Task.Input, &in); err != nil {
		return nil, fmt.Errorf("measure task input: %w", err)
	}
	g := &Globals{Root: "/", deps: Deps{
		Registry: workload.Default(), Exe: "/proc/self/exe", WorkerArgs: []string{workload.WorkerCommand},
		Now: time.Now, NewRunID: func() string { return in.RunID },
	}}
	env, err := collectEnv(ctx, g)
	if err != nil {
		return nil, err
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return nil, err
	}
	v := config.Verify(env, in.Config, in.Plan, in.SeenBootIDs, kb)
	if !v.OK {
		return nil, fmt.Errorf("%w: this boot does not verify as configuration %s, so it was not measured: %s", lab.ErrNotVerified, in.Config.Name, strings.Join(v.Reasons, "; "))
	}
	guest.Logf("verified %s: boot %s, command line %q", in.Config.Name, v.BootID, v.Cmdline)
	o := &runOptions{suite: in.Suite, only: in.Only, skip: in.Skip, params: in.Params, runs: in.Runs,
		warmup: in.Warmup, seed: in.Seed, timeout: time.Duration(in.TimeoutS * float64(time.Second))}
	if o.timeout <= 0 {
		o.timeout = 10 * time.Minute
	}
	pl, err := makePlan(ctx, g, o, []string{"native"})
	if err != nil {
		return nil, err
	}
	r := &run.Run{
		Schema: run.Schema, ID: in.RunID, Label: in.Label, Started: time.Now().UTC(),
		Suite: string(pl.Suite), Engine: "native", ToolVersion: Version,
		Repetitions: plan.Repetitions(o.runs, pl.Suite), Warmup: o.warmup, Seed: o.seed, Env: env,
		Config: config.Record(in.Config, v), Notes: pl.Notes,
		Results: runner.NewResults(pl.Items),
	}
	last := time.Now()
	err = runner.Run(ctx, r, pl.Items, runner.Options{
		Warmup: o.warmup, Seed: o.seed, Now: time.Now,
		Env: workload.Env{Exe: g.deps.Exe, WorkerArgs: g.deps.WorkerArgs, Timeout: o.timeout},
		OnEvent: func(e runner.Event) {
			if e.Finished && time.Since(last) > 5*time.Second {
				last = time.Now()
				guest.Logf("%d/%d repetitions", e.Done+1, e.Total)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	return lab.EncodeRun(r)
}
