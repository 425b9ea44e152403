package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Temp is a new file written under a temporary name beside its target and
// renamed over it by Commit: the one way sectax replaces a file (-o FILE,
// a .wslconfig, node_exporter's textfile; internal/layers checks that
// os.CreateTemp is called nowhere else). The temporary file is made with
// O_EXCL, so what is at the target or at any other name is never opened;
// the target is whole or untouched.
type Temp struct {
	f      *os.File
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
// pattern (os.CreateTemp's), with mode and, when sectax runs as root and
// owner is not nil, that owner (given first: a chown clears the set-id
// bits of the mode).
func NewTemp(target, pattern string, mode fs.FileMode, owner *Owner) (*Temp, error) {
	f, err := os.CreateTemp(filepath.Dir(target), pattern)
	if err != nil {
		return nil, &StepError{StepCreate, err}
	}
	t := &Temp{f: f, target: target}
	if owner != nil && os.Geteuid() == 0 {
		if err := f.Chown(owner.UID, owner.GID); err != nil {
			t.Discard()
			return nil, &StepError{StepOwner, err}
		}
	}
	if err := f.Chmod(mode); err != nil {
		t.Discard()
		return nil, &StepError{StepMode, err}
	}
	return t, nil
}

// Name is the temporary file's path.
func (t *Temp) Name() string { return t.f.Name() }

func (t *Temp) Write(p []byte) (int, error) { return t.f.Write(p) }

// Commit syncs the temporary file to disk, closes it and renames it over
// the target, so that a full disk leaves no half-written file; on failure
// the temporary file is removed.
func (t *Temp) Commit() error {
	step, err := StepSync, t.f.Sync()
	if cerr := t.f.Close(); err == nil {
		step, err = StepClose, cerr
	}
	if err == nil {
		step, err = StepRename, os.Rename(t.f.Name(), t.target)
	}
	if err != nil {
		os.Remove(t.f.Name())
		return &StepError{step, err}
	}
	return nil
}

// Discard closes and removes the temporary file; the target is untouched.
func (t *Temp) Discard() {
	t.f.Close()
	os.Remove(t.f.Name())
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
