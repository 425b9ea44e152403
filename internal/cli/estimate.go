package cli

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/store"
)

// sayEstimate says, unless -q, how long the run of pl is expected to take:
// from this machine's stored runs of the same suite and engine when the
// store has some, else from the plan (plan.Plan.Estimate).
func sayEstimate(ctx context.Context, g *Globals, pl *plan.Plan, warmup int, engine string) {
	if !g.Quiet {
		g.notice("%s", pl.Estimate(warmup, pastDurations(ctx, g, hostname(g), string(pl.Suite), engine, "")))
	}
}

// pastDurations are the durations of the stored runs store.DB.Durations
// selects; none when there is no store yet (it is never created here) or
// it cannot be read: an estimate is no reason to fail.
func pastDurations(ctx context.Context, g *Globals, host, suite, engine, accel string) []time.Duration {
	if path, err := g.dbPath(); err != nil || path == "" {
		return nil
	} else if _, err := os.Stat(path); err != nil && !store.IsURL(path) {
		return nil
	}
	db, err := openStore(ctx, g, false)
	if err != nil {
		return nil
	}
	defer db.Close()
	d, _ := db.Durations(ctx, host, suite, engine, accel)
	return d
}

// hostname is the hostname of the machine below --root ("" when it cannot
// be read).
func hostname(g *Globals) string {
	fs, err := rootfs.Open(g.Root)
	if err != nil {
		return ""
	}
	defer fs.Close()
	s, _ := fs.ReadText("proc/sys/kernel/hostname")
	return strings.TrimSpace(s)
}
