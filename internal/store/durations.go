package store

import (
	"context"
	"time"

	"github.com/sectax/sectax/internal/run"
)

// Durations are how long the complete stored runs of host (the
// environment's hostname; "": any) with suite and engine took, oldest first: runs
// measured in a lab guest under accel when accel is set, runs measured on
// the machine itself when it is "". They feed the estimate said at the
// start of a run, a lab and a campaign (plan.Plan.Estimate).
func (d *DB) Durations(ctx context.Context, host, suite, engine, accel string) ([]time.Duration, error) {
	list, err := d.ListBrief(ctx)
	if err != nil {
		return nil, err
	}
	var out []time.Duration
	for _, s := range list {
		h, _ := s.Env["hostname"].(string)
		took := s.Finished.Sub(s.Started)
		if s.Status == run.StatusComplete && (host == "" || h == host) && s.Suite == suite && s.Engine == engine && s.Accel == accel && took > 0 {
			out = append(out, took)
		}
	}
	return out, nil
}
