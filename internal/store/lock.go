package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/userfile"
	"golang.org/x/sys/unix"
)

// LockPath is the measuring lock of the store r names: for an SQLite
// file the file beside it (beside the target when the path is a link to
// one, so that every name of a store takes the same lock); for a
// PostgreSQL database, which has no file beside it, a file named after
// the URL (without password) in this user's runtime folder (RuntimeDir),
// where no other user can plant, hold or remove it. create says whether
// that folder may be made.
func (r Ref) LockPath(create bool) (string, error) {
	if r.IsURL() {
		dir, err := RuntimeDir(create)
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256([]byte(redactURL(r.s)))
		return filepath.Join(dir, "pg-"+hex.EncodeToString(sum[:8])+".lock"), nil
	}
	p, err := resolveStore(r.s)
	if err != nil {
		return "", err
	}
	return p + ".lock", nil
}

// RuntimeDir is a folder only this user can write, for the measuring
// locks that have no store folder to live in (a PostgreSQL store, a
// command that stores nothing): /run/sectax for root, else
// $XDG_RUNTIME_DIR/sectax (or /run/user/UID/sectax), else
// $TMPDIR/sectax-UID. It is made mode 0700 when create is set; an existing
// one is used only when it is a folder (not a link to one) this user owns
// and no one else may write, else refused in one line naming the fix.
func RuntimeDir(create bool) (string, error) {
	uid := os.Geteuid()
	var dir string
	switch {
	case uid == 0:
		dir = "/run/sectax"
	case privateDir(os.Getenv("XDG_RUNTIME_DIR"), uid) == nil:
		dir = filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "sectax")
	case privateDir(fmt.Sprintf("/run/user/%d", uid), uid) == nil:
		dir = fmt.Sprintf("/run/user/%d/sectax", uid)
	default:
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("sectax-%d", uid))
	}
	if create {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("cannot make the lock folder %s: %v: make it (mkdir -m 700 %s) or fix its parent", dir, userfile.Cause(err), dir)
		}
	}
	if err := privateDir(dir, uid); err != nil {
		return "", err
	}
	return dir, nil
}

// privateDir checks that dir is a folder, not a link, owned by uid and
// not writable by anyone else: the one check of sectax's private folders
// beside the store (the lock folder, the spool's folder).
func privateDir(dir string, uid int) error {
	return privateFolder("lock folder", dir, uid)
}

// privateFolder is privateDir, the folder named as what in its messages.
func privateFolder(what, dir string, uid int) error {
	if dir == "" || !filepath.IsAbs(dir) {
		return errors.New("no folder")
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: dir, Err: err}
	}
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return fmt.Errorf("%s %s is a symbolic link; sectax does not follow one there: remove it (rm %s)", what, dir, dir)
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return fmt.Errorf("%s %s is not a folder: remove it (rm %s)", what, dir, dir)
	case int(st.Uid) != uid || st.Mode&0o022 != 0:
		return fmt.Errorf("%s %s belongs to uid %d with mode %o, not to uid %d alone: another user could replace what sectax keeps there: remove it (rm -r %s)", what, dir, st.Uid, st.Mode&0o7777, uid, dir)
	}
	return nil
}

// LockedError says that another process holds the measuring lock.
type LockedError struct {
	Path string
	// PID is the holder's process id as it wrote it, 0 when unreadable.
	PID int
}

func (e *LockedError) Error() string {
	who := "another sectax process"
	if e.PID > 0 {
		who = fmt.Sprintf("another sectax run (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is measuring (lock %s); only one run may measure at a time: wait for it to finish", who, e.Path)
}

// lockFlags open a lock without following a link at its name, without
// blocking (a FIFO planted there opens at once, and is then refused), and
// without making a terminal sectax's.
const lockFlags = unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY

// notALock refuses what is at a lock's name when it is not a regular file.
func notALock(path string, mode uint32) error {
	if mode&unix.S_IFMT == unix.S_IFLNK {
		return exit.Usagef("lock %s is a symbolic link; sectax does not follow links beside the store: remove it (rm %s) and run again", path, path)
	}
	return exit.Usagef("lock %s is %s, not a regular file: remove it (rm %s) and run again", path, userfile.Kind(modeType(mode)), path)
}

// modeType is the fs.FileMode type bits of a stat mode.
func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return 0
}

// Lock takes the single-measurer lock of the store r names (LockPath: an flock, which the kernel releases if the process dies) and
// writes this process's pid into it. A second caller gets a *LockedError
// naming the holder's pid. release unlocks; the file stays so that no
// other process can lock a file about to be removed.
//
// The lock is opened as the plan files are: no link followed, never
// blocking, a regular file only (anything else is refused in one line
// naming the fix). A lock file this user does not own, or that has
// another name (a hard link), is locked but never written: root does not
// write into a file another user made beside a shared store.
func (r Ref) Lock() (release func(), err error) {
	if r.IsZero() {
		return nil, errors.New("no store path for the run lock: pass --db PATH or set SECTAX_DB")
	}
	path, err := r.LockPath(true)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create lock %s: %v: fix the folder or pass another --db", path, userfile.Cause(err))
	}
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, notALock(path, st.Mode)
	}
	write := true
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|lockFlags, 0o644)
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EROFS) {
		// Another user's lock (or a read-only folder): an flock needs no
		// write access.
		write = false
		fd, err = unix.Open(path, unix.O_RDONLY|lockFlags, 0)
	}
	if errors.Is(err, unix.ELOOP) {
		return nil, notALock(path, unix.S_IFLNK)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot create lock %s: %v: fix the folder or pass another --db", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil, notALock(path, st.Mode)
	}
	if int(st.Uid) != os.Geteuid() || st.Nlink != 1 {
		write = false
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &LockedError{Path: path, PID: readPID(f)}
		}
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	if !write {
		return sync.OnceFunc(func() {
			_ = unix.Flock(fd, unix.LOCK_UN)
			_ = f.Close()
		}), nil
	}
	// The pid in the file is how another sectax names the holder; a lock
	// it cannot be written to (a full disk) is refused rather than held
	// anonymously.
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		_ = unix.Flock(fd, unix.LOCK_UN)
		_ = f.Close()
		return nil, fmt.Errorf("cannot write this process's id to lock %s: %w", path, err)
	}
	// Once: a second call must not unlock a descriptor number reused since.
	return sync.OnceFunc(func() {
		_ = f.Truncate(0)
		_ = unix.Flock(fd, unix.LOCK_UN)
		_ = f.Close()
	}), nil
}

// readPID reads the pid a holder wrote into its lock (at most 32 bytes),
// 0 when there is none.
func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return max(pid, 0)
}

// MeasuringPID returns the pid of the sectax run that holds the lock of
// the store r names (-1 if it cannot be read), or 0 when none does. A run
// whose status is still "running" while no process holds the lock was cut
// short (killed, crashed, power lost) and keeps the samples it finished.
// It never blocks and creates nothing (not even the runtime folder):
// what is at the lock's name and is not a regular file is no lock, and a
// link there is not followed.
func (r Ref) MeasuringPID() int {
	if r.IsZero() {
		return 0
	}
	path, err := r.LockPath(false)
	if err != nil {
		return 0
	}
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0 // not opened at all: a device may act on an open
	}
	fd, err := unix.Open(path, unix.O_RDONLY|lockFlags, 0)
	if err != nil {
		return 0
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0
	}
	if err := unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB); err == nil {
		_ = unix.Flock(fd, unix.LOCK_UN)
		return 0
	}
	if pid := readPID(f); pid > 0 {
		return pid
	}
	return -1 // held, pid unreadable
}

// MeasuredError says that a run cannot be removed: it is marked running
// and a sectax process holds the store's measuring lock.
type MeasuredError struct {
	ID  string
	PID int // the holder's pid, -1 when unreadable
}

func (e *MeasuredError) Error() string {
	who, stop := "a sectax process", "stop that run (Ctrl-C in its terminal)"
	if e.PID > 0 {
		who, stop = fmt.Sprintf("sectax (pid %d)", e.PID), fmt.Sprintf("stop it (kill %d)", e.PID)
	}
	return fmt.Sprintf("run %s is still being measured by %s: wait for it to finish, or %s, then remove it", shownID(e.ID), who, stop)
}

// CheckIdle refuses (*MeasuredError) a run that is marked running while
// a sectax process holds the measuring lock of the store; a run
// marked running whose measurer is gone (the lock is free) was cut short
// and may go.
func (d *DB) CheckIdle(ctx context.Context, id string) error {
	var status string
	err := d.db.QueryRowContext(ctx, `SELECT `+textColumn("status", run.MaxNameBytes)+` FROM runs WHERE id=?`, id).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return &NotFoundError{Ref: id}
	}
	if err != nil {
		return d.wrap(err)
	}
	if run.Status(status) != run.StatusRunning {
		return nil
	}
	if pid := d.ref.MeasuringPID(); pid != 0 {
		return &MeasuredError{ID: id, PID: pid}
	}
	return nil
}

// OpenMeasuring takes the lock that lets one measurement run at a time
// (Lock, beside the store) and then opens the store with opt: the one
// lock-then-open of every command that measures into a store (run,
// attribute, lab, campaign). done closes the store and releases the lock.
func (r Ref) OpenMeasuring(ctx context.Context, opt Options) (db *DB, done func(), err error) {
	release, err := r.Lock()
	if err != nil {
		return nil, nil, err
	}
	if db, err = r.Open(ctx, opt); err != nil {
		release()
		return nil, nil, err
	}
	return db, func() { db.Close(); release() }, nil
}
