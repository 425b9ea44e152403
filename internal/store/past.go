package store

import (
	"context"
	"os"

	"github.com/sectax/sectax/internal/run"
)

// MaxPastRuns bounds the stored runs an estimate reads: the newest.
const MaxPastRuns = 5

// PastRuns are the newest complete stored runs (at most MaxPastRuns,
// oldest first) of host (the environment's hostname; "": any) with suite
// and engine: runs measured in a lab guest under accel when accel is set,
// runs measured on the machine itself when it is "". They feed the
// estimate said at the start of a run, a lab and a campaign
// (plan.Plan.Estimate), which learns from how long each took
// (run.Run.Took) and from its samples. A run that cannot be read is left
// out: an estimate is no reason to fail.
func (d *DB) PastRuns(ctx context.Context, host, suite, engine, accel string) ([]*run.Run, error) {
	list, err := d.ListBrief(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, s := range list {
		h, _ := s.Env["hostname"].(string)
		if s.Status == run.StatusComplete && (host == "" || h == host) && s.Suite == suite && s.Engine == engine && s.Accel == accel &&
			run.Took(s.Started, s.Finished, s.VMWall) > 0 {
			ids = append(ids, s.ID)
		}
	}
	ids = ids[max(len(ids)-MaxPastRuns, 0):]
	var out []*run.Run
	for _, id := range ids {
		if r, err := d.Get(ctx, id); err == nil && r.Took() > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

// PastRunsAt are the PastRuns of the store at path (a --db value), none
// when there is no store there yet (it is never created here) or it
// cannot be read.
func PastRunsAt(ctx context.Context, path, host, suite, engine, accel string) []*run.Run {
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
	r, _ := db.PastRuns(ctx, host, suite, engine, accel)
	return r
}
