// Package sides loads the sides of a comparison: a published baseline, or
// stored runs with their stored environments. It is the one place that
// turns a reference (baseline:NAME, a run id, a label, a selector) or a
// list of run ids into a compare.Side, so that compare never knows where
// its runs came from and every command loads a side the same way.
package sides

import (
	"context"
	"strings"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

// ErrEmptyRef is the error for an empty run reference ('sectax compare "" on').
var ErrEmptyRef = exit.New(exit.Usage, "an empty run reference: name a run id, a label or baseline:NAME ('sectax list' shows the runs, 'sectax baselines' the baselines)")

// Loader resolves references into sides. The store is opened on first
// need (two baselines need none) and kept open for the next reference.
type Loader struct {
	// Open opens the store; its error (no database yet) is returned as it is.
	Open func(ctx context.Context, ref string) (*store.DB, error)
	db   *store.DB
}

// OnDB is a loader over an open store.
func OnDB(db *store.DB) *Loader { return &Loader{db: db} }

// DB is the store the loader opened, or nil.
func (l *Loader) DB() *store.DB { return l.db }

// Sides loads a side for each reference, in order (Side).
func (l *Loader) Sides(ctx context.Context, refs []string) ([]compare.Side, error) {
	out := make([]compare.Side, 0, len(refs))
	for _, ref := range refs {
		s, err := l.Side(ctx, ref)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Close closes the store the loader opened (a store given to OnDB stays
// open: its owner closes it).
func (l *Loader) Close() {
	if l.db != nil && l.Open != nil {
		l.db.Close()
		l.db = nil
	}
}

// Side resolves ref: baseline:NAME, a run id, a label, a selector or a
// unique run-id prefix.
func (l *Loader) Side(ctx context.Context, ref string) (compare.Side, error) {
	if ref == "" {
		return compare.Side{}, ErrEmptyRef
	}
	if strings.HasPrefix(ref, baseline.Prefix) {
		d, err := baseline.Get(ref)
		if err != nil {
			return compare.Side{}, err
		}
		return compare.BaselineSide(ref, d), nil
	}
	if l.db == nil {
		d, err := l.Open(ctx, ref)
		if err != nil {
			return compare.Side{}, err
		}
		l.db = d
	}
	ids, how, err := l.db.Resolve(ctx, ref)
	if err != nil {
		return compare.Side{}, err
	}
	kind := compare.KindRun
	if how == store.ByLabel || how == store.BySelector {
		kind = compare.KindLabel
	}
	return Runs(ctx, l.db, ref, kind, ids)
}

// Runs is the side named name of the stored runs ids, each with its stored
// environment (the comparison checks that only the mitigations differ).
func Runs(ctx context.Context, db *store.DB, name, kind string, ids []string) (compare.Side, error) {
	runs, envs, err := Load(ctx, db, ids)
	if err != nil {
		return compare.Side{}, err
	}
	return compare.RunsSide(name, kind, runs, envs), nil
}

// Load reads the stored runs ids and their stored environments.
func Load(ctx context.Context, db *store.DB, ids []string) ([]*run.Run, []map[string]any, error) {
	runs, err := db.GetMany(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	envs, err := db.Envs(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	return runs, envs, nil
}
