package cli

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/sectax/sectax/internal/sides"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/term"
)

// storeTuning is how long a write waits for a database locked by another
// process (tests shorten it).
var storeTuning = struct {
	busyTimeout time.Duration
	backoff     []time.Duration
}{}

// ref is the store --db (or its default) names, parsed once
// (store.ParseRef) and kept.
func (g *Globals) ref() (store.Ref, error) {
	if g.dbRef.IsZero() {
		r, err := store.ParseRef(g.DB)
		if err != nil {
			return store.Ref{}, err
		}
		g.dbRef = r
	}
	return g.dbRef, nil
}

// dbShown is how --db is named in a message: its Ref without password,
// or nothing of a value that does not parse.
func (g *Globals) dbShown() string {
	if r, err := g.ref(); err == nil {
		return r.String()
	}
	return store.DisplayName(g.DB)
}

// openStore opens the database of --db. Without create, a missing file is
// reported as store.ErrNoDatabase (callers turn it into "no such run").
func openStore(ctx context.Context, g *Globals, create bool) (*store.DB, error) {
	r, err := g.ref()
	if err != nil {
		return nil, err
	}
	o := g.storeOptions()
	o.Create = create
	return r.Open(ctx, o)
}

// storeOptions: a write that finds the database locked is retried with a
// bounded backoff, saying so on stderr, as are notes of what a read cut.
func (g *Globals) storeOptions() store.Options {
	return store.Options{BusyTimeout: storeTuning.busyTimeout, Backoff: storeTuning.backoff, Out: g.out}
}

// measureInto takes the lock that lets one measurement run at a time
// (run, attribute probes) and, unless noStore, opens --db to record a run
// labelled label in it as it goes (store.Ref.OpenRecorder: through the
// local spool for a PostgreSQL store); a run the store cannot take is
// printed all the same and spilled to a file beside the store, and the
// command then fails naming the file. rec is nil with noStore; done
// releases what it took.
func measureInto(ctx context.Context, g *Globals, noStore bool, label string) (rec *store.Recorder, done func(), err error) {
	if noStore {
		release, err := g.measureLock(true)
		return nil, release, err
	}
	r, err := g.ref()
	if err != nil {
		return nil, nil, err
	}
	return r.OpenRecorder(ctx, label, g.storeOptions())
}

// noDatabase is the error for a reference when no database exists yet.
func noDatabase(g *Globals, ref string) error {
	if ref == "" {
		return emptyRef()
	}
	return usagef("no run or label matches %q: there is no database at %s yet (store runs with 'sectax run' or 'sectax import', or pass --db)", ref, g.dbShown())
}

// nothingStored is the one answer of the commands that read what is
// stored (list, fleet, attribute report, campaign report) when there is no
// database yet: not a mistake but a state, so a one-line note naming how to
// store something, and exit 0.
func nothingStored(g *Globals, how string) {
	g.notice("no runs stored yet (no database at %s); %s", g.dbShown(), how)
}

// emptyRef is the error for an empty run reference ('sectax compare "" on').
func emptyRef() error { return sides.ErrEmptyRef }

// resolveOne opens the database and resolves ref to a single run id.
func resolveOne(ctx context.Context, g *Globals, ref string) (*store.DB, string, error) {
	if ref == "" {
		return nil, "", emptyRef()
	}
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
		return nil, "", err
	}
	return db, id, nil
}

// loader resolves compare arguments (baseline:NAME, a run id, a label or a
// unique run-id prefix) into sides, opening --db on first need; the caller
// closes it.
func (g *Globals) loader() *sides.Loader {
	return &sides.Loader{Open: func(ctx context.Context, ref string) (*store.DB, error) {
		d, err := openStore(ctx, g, false)
		if errors.Is(err, store.ErrNoDatabase) {
			return nil, noDatabase(g, ref)
		}
		return d, err
	}}
}

// colorAllowed says whether stdout may carry ANSI colours.
func (g *Globals) colorAllowed() bool {
	return !g.NoColor && (g.Output == "" || g.Output == "-") && term.IsTerminal(g.stdout)
}

// measureLock takes the lock that lets one measurement run at a time
// (crosscheck, a run or probes not stored): a second one would disturb
// the first one's numbers. It lives beside the store, at the store's
// resolved path, so every command and every working directory takes the
// same one; a command that stores nothing and has no store path locks a
// file in this user's runtime folder (store.RuntimeDir). A command that
// stores what it measures takes it with the store (store.Ref.OpenMeasuring).
func (g *Globals) measureLock(storesNothing bool) (release func(), err error) {
	r, err := g.ref()
	if err != nil {
		if !storesNothing {
			return nil, err
		}
		// Not a fixed name in the shared temporary folder, which any
		// user could plant or hold: this user's own runtime folder.
		dir, derr := store.RuntimeDir(true)
		if derr != nil {
			return nil, derr
		}
		if r, err = store.ParseRef(filepath.Join(dir, "no-store.db")); err != nil {
			return nil, err
		}
	}
	return r.Lock()
}
