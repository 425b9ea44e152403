package prom

import (
	"context"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

// LatestHostRun is the newest complete run in db that measured this host
// itself (HostRun), nil when there is none.
func LatestHostRun(ctx context.Context, db *store.DB) (*run.Run, error) {
	all, err := db.List(ctx)
	if err != nil {
		return nil, err
	}
	for i := len(all) - 1; i >= 0; i-- {
		// A run measured in a QEMU guest (sectax lab, or a campaign of lab
		// boots) is not this host's latest: it measured another kernel
		// on another (virtual, maybe emulated) CPU.
		if all[i].Status == run.StatusComplete && all[i].Accel == "" {
			r, err := db.Get(ctx, all[i].ID)
			if err != nil || HostRun(r) {
				return r, err
			}
		}
	}
	return nil, nil
}
