package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Primary SQLite result codes (the low byte of an extended code).
const (
	sqlitePerm     = 3
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// BusyError says that another process held the database's write lock for
// longer than sectax waited.
type BusyError struct {
	Path   string
	Waited time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("database %s is locked by another process (waited %v); try again when it is done", e.Path, e.Waited.Round(time.Millisecond))
}

// DiskError says that a write to the database failed for want of space
// (a full filesystem, a file size limit) or an I/O error, with the fix.
type DiskError struct {
	Path string
	Msg  string
	Err  error
}

func (e *DiskError) Error() string { return e.Msg }
func (e *DiskError) Unwrap() error { return e.Err }

// IsWriteFailure reports whether err is the store failing to write (busy
// past the backoff, disk full, I/O error): what a finished measurement
// survives by being written to a file instead.
func IsWriteFailure(err error) bool {
	var be *BusyError
	var de *DiskError
	return errors.As(err, &be) || errors.As(err, &de)
}

// diskError names what stopped a write to the database at path: the
// filesystem's free space, the process's file size limit, or the disk.
func diskError(path string, err error) error {
	dir := filepath.Dir(path)
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) == nil {
		free := fs.Bavail * uint64(fs.Bsize)
		if free < 1<<20 {
			return &DiskError{Path: path, Err: err, Msg: fmt.Sprintf("cannot write store %s: the filesystem of %s is full (%d KiB free): free some space there or pass --db on another filesystem", path, dir, free>>10)}
		}
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_FSIZE, &lim) == nil && lim.Cur != unix.RLIM_INFINITY && lim.Cur < math.MaxInt64 {
		return &DiskError{Path: path, Err: err, Msg: fmt.Sprintf("cannot write store %s: the file size limit of this process (ulimit -f) is %d bytes: raise it (ulimit -f unlimited) or pass --db", path, lim.Cur)}
	}
	return &DiskError{Path: path, Err: err, Msg: fmt.Sprintf("cannot write store %s: I/O error (%v): check the disk (dmesg) or pass --db on another filesystem", path, err)}
}

// accessError names the directory or file of the store at path that this
// user cannot search, read or write, and the fix; nil when access is
// not the problem. SQLite needs to write the directory too (its -wal and
// -shm files live beside the database).
func accessError(path string) error {
	uid := os.Geteuid()
	// The deepest existing ancestor tells whether the path can be made.
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	// Every directory on the way must be searchable.
	for d := dir; ; d = filepath.Dir(d) {
		if err := unix.Access(d, unix.X_OK); err != nil {
			return fmt.Errorf("cannot open store %s: directory %s is not accessible by uid %d (%v): pass --db or fix permissions", path, d, uid, err)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		why := fmt.Sprintf("not writable by uid %d", uid)
		if errors.Is(err, unix.EROFS) {
			why = "on a read-only filesystem"
		}
		return fmt.Errorf("cannot open store %s: directory %s is %s: pass --db or fix permissions", path, dir, why)
	}
	if _, err := os.Stat(path); err == nil {
		if err := unix.Access(path, unix.R_OK|unix.W_OK); err != nil {
			return fmt.Errorf("cannot open store %s: the file is not readable and writable by uid %d (%v): pass --db or fix permissions", path, uid, err)
		}
	}
	return nil
}

// retry runs f, a whole write transaction, again after each wait of the
// backoff while it fails with a *BusyError; the final error says how long
// it waited in all.
func (d *DB) retry(ctx context.Context, f func() error) error {
	waited := time.Duration(0)
	for attempt := 0; ; attempt++ {
		err := f()
		var be *BusyError
		if !errors.As(err, &be) {
			return err
		}
		waited += d.busy
		if attempt >= len(d.backoff) || ctx.Err() != nil {
			be.Waited = waited
			return be
		}
		wait := d.backoff[attempt]
		d.out.Notef("database %s is locked by another process; trying again in %v (attempt %d of %d)", d.path, wait, attempt+2, len(d.backoff)+1)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		waited += wait
	}
}
