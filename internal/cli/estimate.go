package cli

import (
	"context"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// pastRuns are this machine's stored runs with engine of the same work
// as pl (its workloads at its parameters: a command's, a crosscheck's and
// the probes' plans are not their suite's), which the estimate of a run
// learns from (none when the store has none).
func pastRuns(ctx context.Context, g *Globals, pl *plan.Plan, engine string) []*run.Run {
	ref, err := g.ref()
	if err != nil {
		return nil
	}
	return ref.PastRunsLike(ctx, sysinfo.Hostname(g.Root), engine, pl.SameWork)
}
