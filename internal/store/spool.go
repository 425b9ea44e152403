package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/userfile"
)

// A run into a PostgreSQL store is measured into a local SQLite spool
// (SpoolPath, beside the default SQLite store) and moved to PostgreSQL in
// one transaction when it ends. A network drop mid-run therefore loses
// nothing: the run stays in the spool, and `sectax push` moves it later.

// OpenRecorder takes the measuring lock of the store r names and opens
// it (OpenMeasuring, created if needed) for a new run labelled label,
// which it checks first (CheckNewLabel), and records the run in it as it
// goes (NewRecorder), saying on opts.Out what becomes of it. For a
// PostgreSQL store it checks that the server answers, so that a wrong URL
// fails before measuring, and records in the local spool instead: Saved
// pushes the run once it ends. done closes what it opened and releases
// the lock.
func (r Ref) OpenRecorder(ctx context.Context, label string, opts Options) (rec *Recorder, done func(), err error) {
	opts.Create = true
	spool := ""
	if r.IsURL() {
		if spool, err = SpoolPath(); err != nil {
			return nil, nil, err
		}
	}
	db, closeDB, err := r.OpenMeasuring(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := db.CheckNewLabel(ctx, label); err != nil {
		closeDB()
		return nil, nil, err
	}
	if spool == "" {
		return NewRecorder(ctx, db, opts.Out), closeDB, nil
	}
	db.Close() // PostgreSQL answers and takes the label: record in the spool
	if err := checkSpool(spool, true); err != nil {
		closeDB()
		return nil, nil, err
	}
	sp, err := refOf(spool).Open(ctx, Options{Create: true, Out: spoolNotes{ui.Or(opts.Out)}})
	if err != nil {
		closeDB()
		return nil, nil, fmt.Errorf("spool: %w", err)
	}
	rec = NewRecorder(ctx, sp, opts.Out)
	rec.push = &pushTarget{ref: r, opts: opts}
	return rec, func() { sp.Close(); closeDB() }, nil
}

// spoolNotes says a note of what a read of the spool cut or skipped (an
// environment over MaxReadEnvBytes read as none, …), as a store's read
// says it, and that the run goes to PostgreSQL as read.
type spoolNotes struct{ ui.Printer }

func (p spoolNotes) Notef(format string, a ...any) {
	p.Printer.Notef("%s; the run is pushed as read", fmt.Sprintf(format, a...))
}

// pushTarget is the PostgreSQL store a spooled run goes to.
type pushTarget struct {
	ref  Ref
	opts Options
}

// pushed moves the spooled run r to its PostgreSQL store; the error keeps
// it in the spool for 'sectax push'.
func (s *Recorder) pushed(r *run.Run) error {
	// Ctrl-C may have cancelled the run's context: the push of what
	// finished must still happen.
	n, _, err := s.push.ref.pushSpooled(context.WithoutCancel(s.ctx()), s.push.opts, s.DB, []string{r.ID})
	if err != nil || n != 1 {
		return fmt.Errorf("run %s is kept in the spool %s: %v; push it with 'sectax push' when the database is reachable", r.ID, s.DB.Path(), err)
	}
	s.out.Notef("stored run %s in %s", r.ID, s.push.ref)
	return nil
}

// pushSpooled moves the runs ids from the spool sp to the PostgreSQL
// store r names (Push), saying on opts.Out which it already held.
func (r Ref) pushSpooled(ctx context.Context, opts Options, sp *DB, ids []string) (int, []string, error) {
	opts.Create = true
	pg, err := r.Open(ctx, opts)
	if err != nil {
		return 0, nil, err
	}
	defer pg.Close()
	n, held, err := pg.Push(ctx, sp, ids)
	for _, id := range held {
		pg.out.Notef("run %s was already stored in %s", id, r)
	}
	return n, held, err
}

// Pushed is what 'sectax push' did: the runs moved, those the store
// already held (which left the spool too), those left in the spool because
// a run is measuring them, and why nothing was pushed ("" when something
// was).
type Pushed struct {
	Moved, Held, Measuring []string
	Nothing                string
}

// PushSpool moves every run of the local spool to the PostgreSQL store r
// names, but one being measured right now (it is pushed when it ends),
// saying so on opts.Out.
func (r Ref) PushSpool(ctx context.Context, opts Options) (Pushed, error) {
	out := ui.Or(opts.Out)
	var p Pushed
	spool, err := SpoolPath()
	if err != nil {
		return p, err
	}
	if err := checkSpool(spool, false); err != nil {
		return p, err
	}
	sp, err := refOf(spool).Open(ctx, Options{Out: spoolNotes{out}})
	if errors.Is(err, ErrNoDatabase) {
		p.Nothing = "nothing to push: no spool"
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("spool: %w", err)
	}
	defer sp.Close()
	all, err := sp.List(ctx)
	if err != nil {
		return p, err
	}
	measuring := r.MeasuringPID() != 0
	var ids []string
	for _, s := range all {
		if s.Status == run.StatusRunning && measuring {
			out.Notef("run %s is being measured; it is pushed when it ends", s.ID)
			p.Measuring = append(p.Measuring, s.ID)
			continue
		}
		ids = append(ids, s.ID)
	}
	if len(ids) == 0 {
		p.Nothing = "nothing to push: the spool is empty"
		return p, nil
	}
	_, held, err := r.pushSpooled(ctx, opts, sp, ids)
	if err != nil {
		return p, err
	}
	for _, id := range ids {
		if slices.Contains(held, id) {
			p.Held = append(p.Held, id)
		} else {
			p.Moved = append(p.Moved, id)
		}
	}
	return p, nil
}

// checkSpool checks the spool at path before it is opened: it is this
// user's private file, not a shared store. Its folder is checked as the
// lock folder is (privateFolder: a folder, not a link, this user's, no
// one else may write), made 0700 when missing and create is set, never
// inside a folder another user owns or may write (root does not make its
// spool in a user's home); the spool itself, when present, must be a
// regular file of this user's with one name (no link, no hard link to
// another's file), that no one else may write. Every refusal is one line
// naming the fix; nothing of another user's is opened or pushed.
func checkSpool(path string, create bool) error {
	uid := os.Geteuid()
	dir := filepath.Dir(path)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil // no folder, no spool
		}
		if err := spoolAbove(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("cannot make the spool's folder %s: %v: fix its parent or set XDG_DATA_HOME", dir, userfile.Cause(err))
		}
	} else if err := spoolAbove(dir); err != nil {
		return err
	}
	if err := privateFolder("the spool's folder", dir, uid); err != nil {
		return exit.Usagef("%v", err)
	}
	var st unix.Stat_t
	err := unix.Lstat(path, &st)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil
	case err != nil:
		return fmt.Errorf("spool %s: %v", path, err)
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		kind := userfile.Kind(modeType(st.Mode))
		return exit.Usagef("spool %s is %s, not sectax's spool file: remove it (rm %s)", path, kind, path)
	case int(st.Uid) != uid || st.Nlink != 1 || st.Mode&0o022 != 0:
		return exit.Usagef("spool %s belongs to uid %d with mode %o and %d names, not to uid %d alone: sectax does not push another user's runs: remove it (rm %s)", path, st.Uid, st.Mode&0o7777, st.Nlink, uid, path)
	}
	return nil
}

// spoolAbove refuses a spool folder below a folder another user owns or
// others may write (userfile.CheckAbove).
func spoolAbove(dir string) error {
	var ff *userfile.ForeignFolderError
	if err := userfile.CheckAbove(dir); errors.As(err, &ff) {
		return exit.Usagef("the spool's folder %s is inside %v: sectax keeps its spool only in folders of its own: set XDG_DATA_HOME to a folder of yours", dir, ff)
	} else if err != nil {
		return fmt.Errorf("the spool's folder %s: %v", dir, userfile.Cause(err))
	}
	return nil
}
