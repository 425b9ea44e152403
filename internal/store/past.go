package store

import (
	"context"
	"os"
	"slices"

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
	return d.pastRuns(ctx, host, engine, accel, func(s string) bool { return s == suite }, nil)
}

// maxPastReads bounds the stored runs PastRunsLike reads to find its
// MaxPastRuns.
const maxPastReads = 50

// pastRuns are the newest complete stored runs (at most MaxPastRuns,
// oldest first) of host, engine and accel whose suite suits and which
// keep (nil: any) keeps, read newest first.
func (d *DB) pastRuns(ctx context.Context, host, engine, accel string, suite func(string) bool, keep func(*run.Run) bool) ([]*run.Run, error) {
	list, err := d.ListBrief(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, s := range list {
		h, _ := s.Env["hostname"].(string)
		if s.Status == run.StatusComplete && (host == "" || h == host) && suite(s.Suite) && s.Engine == engine && s.Accel == accel &&
			run.Took(s.Started, s.Finished, s.VMWall) > 0 {
			ids = append(ids, s.ID)
		}
	}
	var out []*run.Run
	for i, reads := len(ids)-1, 0; i >= 0 && len(out) < MaxPastRuns && reads < maxPastReads; i, reads = i-1, reads+1 {
		if r, err := d.Get(ctx, ids[i]); err == nil && r.Took() > 0 && (keep == nil || keep(r)) {
			out = append(out, r)
		}
	}
	slices.Reverse(out)
	return out, nil
}

// PastRunsAt are the PastRuns of the store r names, none when there is
// no store there yet (it is never created here) or it cannot be read.
func (r Ref) PastRunsAt(ctx context.Context, host, suite, engine, accel string) []*run.Run {
	return r.pastAt(ctx, func(db *DB) ([]*run.Run, error) { return db.PastRuns(ctx, host, suite, engine, accel) })
}

// PastRunsLike are the newest complete stored runs (at most MaxPastRuns,
// oldest first) of host and engine, measured on the machine itself, that
// same keeps (the same work as a plan's, whatever their suite), in the
// store r names; none as PastRunsAt.
func (r Ref) PastRunsLike(ctx context.Context, host, engine string, same func(*run.Run) bool) []*run.Run {
	return r.pastAt(ctx, func(db *DB) ([]*run.Run, error) {
		return db.pastRuns(ctx, host, engine, "", func(string) bool { return true }, same)
	})
}

// pastAt is what read finds in the store r names; none when there is no
// store there yet (it is never created here) or it cannot be read.
func (r Ref) pastAt(ctx context.Context, read func(*DB) ([]*run.Run, error)) []*run.Run {
	if r.IsZero() {
		return nil
	}
	if _, err := os.Stat(r.s); err != nil && !r.IsURL() {
		return nil
	}
	db, err := r.Open(ctx, Options{})
	if err != nil {
		return nil
	}
	defer db.Close()
	runs, _ := read(db)
	return runs
}
