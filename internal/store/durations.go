package store

import (
	"context"
	"os"
	"time"

	"github.com/sectax/sectax/internal/run"
)

// Durations are how long the complete stored runs of host (the
// environment's hostname; "": any) with suite and engine took, oldest first: runs
// measured in a lab guest under accel when accel is set (each its whole
// boot, the lab block's VM wall time, when the block has it), runs
// measured on the machine itself when it is "". They feed the estimate
// said at the start of a run, a lab and a campaign (plan.Plan.Estimate).
func (d *DB) Durations(ctx context.Context, host, suite, engine, accel string) ([]time.Duration, error) {
	list, err := d.ListBrief(ctx)
	if err != nil {
		return nil, err
	}
	var out []time.Duration
	for _, s := range list {
		h, _ := s.Env["hostname"].(string)
		took := s.Finished.Sub(s.Started)
		if accel != "" && s.VMWall > 0 {
			took = s.VMWall
		}
		if s.Status == run.StatusComplete && (host == "" || h == host) && s.Suite == suite && s.Engine == engine && s.Accel == accel && took > 0 {
			out = append(out, took)
		}
	}
	return out, nil
}

// PastDurations are the Durations of the store at path (a --db value),
// none when there is no store there yet (it is never created here) or it
// cannot be read: an estimate is no reason to fail.
func PastDurations(ctx context.Context, path, host, suite, engine, accel string) []time.Duration {
	p, err := CheckPath(path)
	if err != nil {
		return nil
	}
	if _, err := os.Stat(p); err != nil && !IsURL(p) {
		return nil
	}
	db, err := Open(ctx, p, Options{})
	if err != nil {
		return nil
	}
	defer db.Close()
	d, _ := db.Durations(ctx, host, suite, engine, accel)
	return d
}
