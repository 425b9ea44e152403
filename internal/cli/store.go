package cli

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/sectax/sectax/internal/sides"
	"github.com/sectax/sectax/internal/store"
)

// storeTuning is how long a write waits for a database locked by another
// process (tests shorten it). onBusy, when set, is called after each busy
// attempt has been reported (tests release the lock from it).
var storeTuning = struct {
	busyTimeout time.Duration
	backoff     []time.Duration
	onBusy      func()
}{}

// dbPath checks --db (or its default) with store.CheckPath; g.DB is
// replaced by the absolute path.
func (g *Globals) dbPath() (string, error) {
	p, err := store.CheckPath(g.DB)
	if err == nil {
		g.DB = p
	}
	return p, err
}

// openStore opens the database of --db. Without create, a missing file is
// reported as store.ErrNoDatabase (callers turn it into "no such run").
func openStore(ctx context.Context, g *Globals, create bool) (*store.DB, error) {
	path, err := g.dbPath()
	if err != nil {
		return nil, err
	}
	o := g.storeOptions(path)
	o.Create = create
	return store.Open(ctx, path, o)
}

// storeOptions: a write that finds the database at path locked is retried
// with a bounded backoff, saying so on stderr, as are notes of what a read
// cut.
func (g *Globals) storeOptions(path string) store.Options {
	return store.Options{BusyTimeout: storeTuning.busyTimeout, Backoff: storeTuning.backoff,
		OnBusy: func(wait time.Duration, attempt, of int) {
			g.notice("database %s is locked by another process; trying again in %v (attempt %d of %d)", store.DisplayName(path), wait, attempt, of)
			if storeTuning.onBusy != nil {
				storeTuning.onBusy()
			}
		},
		OnNote: func(msg string) { g.notice("%s", msg) }}
}

// useStore records a run labelled label in --db as it goes
// (store.OpenRecorder: through the local spool for a PostgreSQL store); a
// run the store cannot take is printed all the same and spilled to a file
// beside the store, and the command then fails naming the file.
func useStore(ctx context.Context, g *Globals, label string) (*store.Recorder, func(), error) {
	path, err := g.dbPath()
	if err != nil {
		return nil, nil, err
	}
	return store.OpenRecorder(ctx, path, label, g.storeOptions(path), g.notice)
}

// noDatabase is the error for a reference when no database exists yet.
func noDatabase(g *Globals, ref string) error {
	if ref == "" {
		return emptyRef()
	}
	return usagef("no run or label matches %q: there is no database at %s yet (store runs with 'sectax run' or 'sectax import', or pass --db)", ref, store.DisplayName(g.DB))
}

// nothingStored is the one answer of the commands that read what is
// stored (list, fleet, attribute report, campaign report) when there is no
// database yet: not a mistake but a state, so a one-line note naming how to
// store something, and exit 0.
func nothingStored(g *Globals, how string) {
	g.notice("no runs stored yet (no database at %s); %s", store.DisplayName(g.DB), how)
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
	return !g.NoColor && (g.Output == "" || g.Output == "-") && isTerminal(g.stdout)
}

// measureLock takes the lock that lets one measurement run at a time
// (run, crosscheck, attribute probes, lab, campaign): a second one would
// disturb the first one's numbers. It lives beside the store, at the
// store's resolved path, so every command and every working directory
// takes the same one; a command that stores nothing and has no store
// path locks a file in this user's runtime folder (store.RuntimeDir).
func (g *Globals) measureLock(storesNothing bool) (release func(), err error) {
	path, err := g.dbPath()
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
		path = filepath.Join(dir, "no-store.db")
	}
	return store.AcquireRunLock(path)
}
