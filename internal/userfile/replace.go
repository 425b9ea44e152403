package userfile

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Temp is a new file written under a temporary name beside its target and
// renamed over it by Commit: the one way sectax replaces a file (-o FILE,
// a .wslconfig, node_exporter's textfile, the files sectax names inside a
// folder; internal/layers checks that os.CreateTemp is called nowhere
// else). The target's folder is opened once and every step is relative to
// that descriptor (openat, renameat, unlinkat), so a folder swapped for a
// link midway is not followed. The temporary file is made with
// O_CREAT|O_EXCL|O_NOFOLLOW, so what is at the target or at any other name
// (a link, a FIFO, a device, a hard link to another file) is never opened;
// the rename replaces the name only, and the target is whole or untouched.
type Temp struct {
	f      *os.File
	dir    *os.File // the target's folder (O_PATH)
	tmp    string   // the temporary file's name in dir
	base   string   // the target's name in dir
	target string
}

// Owner is the user and group a replaced file keeps.
type Owner struct{ UID, GID int }

// OwnerOf is the owner of the file fi describes (nil when unknown).
func OwnerOf(fi fs.FileInfo) *Owner {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return &Owner{UID: int(st.Uid), GID: int(st.Gid)}
	}
	return nil
}

// The steps of a replacement, for callers that word each failure.
const (
	StepCreate = "create" // making the temporary file
	StepOwner  = "owner"  // giving it the owner
	StepMode   = "mode"   // giving it the mode
	StepWrite  = "write"
	StepSync   = "sync"
	StepClose  = "close"
	StepRename = "rename" // renaming it over the target
)

// StepError is a failed step of a replacement; the target is unchanged.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// Step is the step err failed at ("" when it is no *StepError).
func Step(err error) string {
	var se *StepError
	if errors.As(err, &se) {
		return se.Step
	}
	return ""
}

// NewTemp makes the temporary file for target in its folder, named from
// pattern (its last "*" replaced by random digits, as os.CreateTemp does),
// with mode and, when sectax runs as root and owner is not nil, that owner
// (given first: a chown clears the set-id bits of the mode).
func NewTemp(target, pattern string, mode fs.FileMode, owner *Owner) (*Temp, error) {
	folder, base := filepath.Dir(target), filepath.Base(target)
	dfd, err := unix.Open(folder, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &StepError{StepCreate, &fs.PathError{Op: "open", Path: folder, Err: err}}
	}
	dir := os.NewFile(uintptr(dfd), folder)
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	var fd int
	var tmp string
	for try := 0; ; try++ {
		var rnd [8]byte
		rand.Read(rnd[:])
		tmp = prefix + strconv.FormatUint(binary.LittleEndian.Uint64(rnd[:])%1e10, 10) + suffix
		fd, err = unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, 0o600)
		if err != unix.EEXIST || try == 100 {
			break
		}
	}
	if err != nil {
		dir.Close()
		return nil, &StepError{StepCreate, &fs.PathError{Op: "create", Path: filepath.Join(folder, tmp), Err: err}}
	}
	t := &Temp{f: os.NewFile(uintptr(fd), filepath.Join(folder, tmp)), dir: dir, tmp: tmp, base: base, target: target}
	if owner != nil && os.Geteuid() == 0 {
		if err := t.f.Chown(owner.UID, owner.GID); err != nil {
			t.Discard()
			return nil, &StepError{StepOwner, err}
		}
	}
	if err := t.f.Chmod(mode); err != nil {
		t.Discard()
		return nil, &StepError{StepMode, err}
	}
	return t, nil
}

// Name is the temporary file's path.
func (t *Temp) Name() string { return t.f.Name() }

func (t *Temp) Write(p []byte) (int, error) { return t.f.Write(p) }

// Commit syncs the temporary file to disk, closes it and renames it over
// the target (in the folder opened by NewTemp), so that a full disk leaves
// no half-written file; on failure the temporary file is removed.
func (t *Temp) Commit() error {
	defer t.dir.Close()
	step, err := StepSync, t.f.Sync()
	if cerr := t.f.Close(); err == nil {
		step, err = StepClose, cerr
	}
	if err == nil {
		step = StepRename
		if rerr := unix.Renameat(int(t.dir.Fd()), t.tmp, int(t.dir.Fd()), t.base); rerr != nil {
			err = &os.LinkError{Op: "rename", Old: t.f.Name(), New: t.target, Err: rerr}
		}
	}
	if err != nil {
		unix.Unlinkat(int(t.dir.Fd()), t.tmp, 0)
		return &StepError{step, err}
	}
	return nil
}

// Discard closes and removes the temporary file; the target is untouched.
func (t *Temp) Discard() {
	t.f.Close()
	unix.Unlinkat(int(t.dir.Fd()), t.tmp, 0)
	t.dir.Close()
}

// Replace writes data to target through a Temp: a new file in its folder,
// written, synced and renamed over it. What is at target is never opened.
func Replace(target, pattern string, data []byte, mode fs.FileMode, owner *Owner) error {
	t, err := NewTemp(target, pattern, mode, owner)
	if err != nil {
		return err
	}
	if _, err := t.Write(data); err != nil {
		t.Discard()
		return &StepError{StepWrite, err}
	}
	return t.Commit()
}

// replaceError words a failed replacement of the file the user named.
func replaceError(name, target string, err error) error {
	return fmt.Errorf("cannot write %s: %v", describeTarget(name, target), Cause(err))
}
