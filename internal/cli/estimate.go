package cli

import (
	"context"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
)

// sayEstimate says, unless -q, how long the run of pl is expected to take:
// from this machine's stored runs of the same suite and engine when the
// store has some, else from the plan (plan.Plan.Estimate).
func sayEstimate(ctx context.Context, g *Globals, pl *plan.Plan, warmup int, engine string) {
	if !g.Quiet {
		g.notice("%s", pl.Estimate(warmup, store.PastRunsAt(ctx, g.DB, sysinfo.Hostname(g.Root), string(pl.Suite), engine, "")))
	}
}
