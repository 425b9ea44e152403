package cli

import (
	"context"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
)

// pastRuns are this machine's stored runs of pl's suite with engine, which
// the estimate of a run learns from (none when the store has none).
func pastRuns(ctx context.Context, g *Globals, pl *plan.Plan, engine string) []*run.Run {
	return store.PastRunsAt(ctx, g.DB, sysinfo.Hostname(g.Root), string(pl.Suite), engine, "")
}
