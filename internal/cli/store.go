package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

// openStore opens the database of --db. Without create, a missing file is
// reported as store.ErrNoDatabase (callers turn it into "no such run").
func openStore(ctx context.Context, g *Globals, create bool) (*store.DB, error) {
	return store.Open(ctx, g.DB, store.Options{Create: create})
}

// refError turns the errors of resolving a run reference into usage errors
// (exit 2) that list the candidates.
func refError(err error) error {
	var nf *store.NotFoundError
	var amb *store.AmbiguousError
	var ub *baseline.UnknownError
	var se *store.SelectorError
	if errors.As(err, &nf) || errors.As(err, &amb) || errors.As(err, &ub) || errors.As(err, &se) {
		return usageError{err}
	}
	return err
}

// noDatabase is the error for a reference when no database exists yet.
func noDatabase(g *Globals, ref string) error {
	return usagef("no run or label matches %q: there is no database at %s yet (store runs with 'sectax run' or 'sectax import', or pass --db)", ref, g.DB)
}

// resolveOne opens the database and resolves ref to a single run id.
func resolveOne(ctx context.Context, g *Globals, ref string) (*store.DB, string, error) {
	db, err := openStore(ctx, g, false)
	if errors.Is(err, store.ErrNoDatabase) {
		return nil, "", noDatabase(g, ref)
	}
	if err != nil {
		return nil, "", err
	}
	id, err := db.ResolveOne(ctx, ref)
	if err != nil {
		db.Close()
		return nil, "", refError(err)
	}
	return db, id, nil
}

// sideOf resolves a compare argument: baseline:NAME, a run id, a label or a
// unique run-id prefix. db is opened on first need and returned.
func sideOf(ctx context.Context, g *Globals, db **store.DB, ref string) (compare.Side, error) {
	if strings.HasPrefix(ref, baseline.Prefix) {
		d, err := baseline.Get(ref)
		if err != nil {
			return compare.Side{}, refError(err)
		}
		return compare.BaselineSide(ref, d), nil
	}
	if *db == nil {
		d, err := openStore(ctx, g, false)
		if errors.Is(err, store.ErrNoDatabase) {
			return compare.Side{}, noDatabase(g, ref)
		}
		if err != nil {
			return compare.Side{}, err
		}
		*db = d
	}
	ids, how, err := (*db).Resolve(ctx, ref)
	if err != nil {
		return compare.Side{}, refError(err)
	}
	var runs []*run.Run
	var envs []map[string]any
	for _, id := range ids {
		r, err := (*db).Get(ctx, id)
		if err != nil {
			return compare.Side{}, err
		}
		env, err := (*db).Env(ctx, id)
		if err != nil {
			return compare.Side{}, err
		}
		runs = append(runs, r)
		envs = append(envs, env)
	}
	kind := compare.KindRun
	if how == store.ByLabel || how == store.BySelector {
		kind = compare.KindLabel
	}
	return compare.RunsSide(ref, kind, runs, envs), nil
}

// colorAllowed says whether stdout may carry ANSI colours.
func (g *Globals) colorAllowed() bool {
	return !g.NoColor && (g.Output == "" || g.Output == "-") && isTerminal(g.stdout)
}
