package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// LockPath is the lock file beside the database at dbPath. A PostgreSQL
// database has no file beside it: its measurers on this machine share a
// lock in the temporary directory, named after the URL (without password).
func LockPath(dbPath string) string {
	if IsURL(dbPath) {
		sum := sha256.Sum256([]byte(redactURL(dbPath)))
		return filepath.Join(os.TempDir(), "sectax-"+hex.EncodeToString(sum[:8])+".lock")
	}
	return dbPath + ".lock"
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

// AcquireRunLock takes the single-measurer lock beside the database (an
// flock on dbPath+".lock", which the kernel releases if the process dies)
// and writes this process's pid into it. A second caller gets a
// *LockedError naming the holder's pid. release unlocks; the file stays so
// that no other process can lock a file about to be removed.
func AcquireRunLock(dbPath string) (release func(), err error) {
	if dbPath == "" {
		return nil, errors.New("no store path for the run lock: pass --db PATH or set SECTAX_DB")
	}
	path := LockPath(dbPath)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot create lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
			return nil, &LockedError{Path: path, PID: pid}
		}
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	// The pid in the file is how another sectax names the holder; a lock
	// it cannot be written to (a full disk) is refused rather than held
	// anonymously.
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		_ = f.Close()
		return nil, fmt.Errorf("cannot write this process's id to lock %s: %w", path, err)
	}
	return func() {
		_ = f.Truncate(0)
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		_ = f.Close()
	}, nil
}

// MeasuringPID returns the pid of the sectax run that holds the lock beside
// the database (-1 if it cannot be read), or 0 when none does. It creates nothing: a run whose
// status is still "running" while no process holds the lock was cut short
// (killed, crashed, power lost) and keeps the samples it finished.
func MeasuringPID(dbPath string) int {
	f, err := os.Open(LockPath(dbPath))
	if err != nil {
		return 0
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return 0
	}
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if pid <= 0 {
		return -1 // held, pid unreadable
	}
	return pid
}
