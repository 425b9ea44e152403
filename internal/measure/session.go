package measure

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/workload"
)

// Meta names the run a plan is measured into and says how its
// repetitions start: everything a run document holds that the plan does
// not.
type Meta struct {
	// ID, Label and Engine ("native", "perf", "native+perf") of the run;
	// Version the sectax that measures it.
	ID, Label, Engine, Version string
	// Env is the machine it is measured on (sysinfo.CollectAs).
	Env *sysinfo.Snapshot
	// Config and Campaign, when set, are the run's blocks (a boot of a
	// lab or a campaign).
	Config   *run.Config
	Campaign *run.Campaign
	// Exe and WorkerArgs re-execute sectax as a worker
	// (workload.Env).
	Exe        string
	WorkerArgs []string
	// Mark is the run's host mark (hostid.Key.Mark of ID; "" none).
	Mark string
	// Now stamps the start and the finish (time.Now when nil).
	Now func() time.Time
	// Load, when set, reads the machine's load for the run's start and
	// end (LoadReader); the run records it (run.Run.Load).
	Load func() *sysinfo.Load
}

// measureRun measures pl into a new run document named by meta: it pins
// the CPUs of the plan, seeds the shuffled order (pl.Request.Seed, or a
// random one), runs the warm-ups and the interleaved repetitions, tells
// progress of each (nil: nothing), and records the run in sink as it
// goes (nil: nowhere). It returns the run also when it was interrupted
// (its status says so, and the error is ctx's) or a recording failed;
// nil only when nothing could start (a CPU list the kernel refuses: a
// usage error). Session.Measure is its one caller.
func measureRun(ctx context.Context, pl *plan.Plan, meta Meta, sink Sink, progress func(Event)) (*run.Run, error) {
	now := meta.Now
	if now == nil {
		now = time.Now
	}
	req := pl.Request
	r := &run.Run{
		Schema: run.Schema, ID: meta.ID, Label: meta.Label, Started: now().UTC(),
		Suite: string(pl.Suite), Engine: meta.Engine, ToolVersion: meta.Version,
		Repetitions: req.RecordedRepetitions(pl.Suite), CPUs: req.CPUs, Env: meta.Env, Notes: pl.Notes,
		Config: meta.Config, Campaign: meta.Campaign, HostMark: meta.Mark,
	}
	warmup := req.Warmup
	if req.DetectWarmup {
		warmup = 0 // each result's warmup block says how many were discarded
	}
	if err := start(r, pl.Items, pl.CPUs, req.Seed, warmup); err != nil {
		return nil, err
	}
	if pl.Perf != nil {
		r.PerfVersion = pl.Perf.Version
	}
	err := measureItems(ctx, r, pl.Items, options{
		Warmup: req.Warmup, DetectWarmup: req.DetectWarmup, Precision: req.Precision, MaxTime: req.MaxTimeOf(),
		Seed: r.Seed, progress: progress, Now: now, Sink: sink, Load: meta.Load,
		Env: workload.Env{Exe: meta.Exe, WorkerArgs: meta.WorkerArgs, Timeout: req.Timeout},
	})
	return r, err
}

// start readies r, the document of a run its command has named (id, label,
// engine, suite, environment, notes), for the repetitions of items: it pins
// the process and its children to cpus (nil: no pinning; a list the
// kernel refuses is a usage error), records the warm-up and the seed of the
// shuffled order (seed, or a random one when 0) and gives every item its
// result. measureItems then measures it with the same warm-up and r.Seed.
func start(r *run.Run, items []plan.Item, cpus []int, seed int64, warmup int) error {
	if cpus != nil {
		if err := SetAffinity(cpus); err != nil {
			return exit.Wrap(exit.Usage, fmt.Errorf("--cpus: %w", err))
		}
	}
	if seed == 0 {
		seed = RandomSeed()
	}
	r.Seed, r.Warmup, r.Results = seed, warmup, NewResults(items)
	return nil
}

// RandomSeed is a random non-negative seed for the shuffled order.
func RandomSeed() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// Outcome is the error a measured run's status stands for: nil for a
// complete run, an Interrupted error saying how much finished for Ctrl-C,
// a runtime error when repetitions failed.
func Outcome(r *run.Run) error {
	switch r.Status {
	case run.StatusInterrupted:
		n := 0
		for _, res := range r.Results {
			if len(res.Metrics) > 0 {
				n += len(res.Metrics[0].Samples)
			}
		}
		return exit.Wrap(exit.Interrupted, fmt.Errorf("interrupted: %d samples of %d workloads finished and are shown above", n, len(r.Results)))
	case run.StatusFailed:
		return exit.Wrap(exit.Runtime, errors.New("some repetitions failed (see the failures above)"))
	}
	return nil
}
