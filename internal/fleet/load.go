package fleet

import (
	"context"
	"errors"

	"github.com/sectax/sectax/internal/store"
)

// Load reads the runs of db labelled on or off, with their environments.
// A stored row that does not read back as a run (store.RowError) is left
// out and returned in bad: one bad row does not stop the fleet.
func Load(ctx context.Context, db *store.DB, on, off string) (runs []Run, bad []*store.RowError, err error) {
	all, err := db.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range all {
		if s.Label != on && s.Label != off {
			continue
		}
		r, err := db.Get(ctx, s.ID)
		var rowErr *store.RowError
		if errors.As(err, &rowErr) {
			bad = append(bad, rowErr)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		runs = append(runs, Run{Run: r, Env: s.Env})
	}
	return runs, bad, nil
}
