package prom

import (
	"context"
	"errors"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/sides"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/store"
)

// Stored fills in what db holds: the newest run of this host (Latest) and
// the tax of OnRef against OffRef as `sectax compare ON OFF` makes it.
// A side not stored yet, or a pair compare refuses, leaves the tax out and
// is returned as skipped (the export goes on without it), unless explicit
// (--on or --off given): then it is the error.
func (in *Input) Stored(ctx context.Context, db *store.DB, explicit bool) (skipped, err error) {
	if in.Latest, err = LatestHostRun(ctx, db); err != nil {
		return nil, err
	}
	skip := func(err error) (error, error) {
		if explicit {
			return nil, err
		}
		return err, nil
	}
	load := sides.OnDB(db)
	a, err := load.Side(ctx, in.OnRef)
	if err != nil {
		return skip(err)
	}
	b, err := load.Side(ctx, in.OffRef)
	if err != nil {
		return skip(err)
	}
	in.Tax, err = compare.CompareSides([]compare.Side{a, b}, compare.Options{Alpha: stats.DefaultAlpha})
	if errors.Is(err, compare.ErrSameRun) || errors.Is(err, compare.ErrDuplicateSide) || errors.Is(err, compare.ErrNothingInCommon) {
		return skip(err) // a usage error (compare's sentinels say so)
	}
	return nil, err
}
