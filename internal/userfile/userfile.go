// Package userfile opens the files a user names on the command line (a
// .wslconfig, a kernel image, an initrd, a modules directory's index) the
// one careful way: the open cannot block (a FIFO without a writer), and
// anything but a regular file (a FIFO, a device such as /dev/zero, a
// directory, a socket) is refused in one line instead of hanging or
// reading forever. It also owns the wording of file errors: the message
// names the path itself, so the operation and path of *fs.PathError are
// dropped (Cause).
//
// It is also the one writer of new files (replace.go: a temporary file
// renamed over the target) and of the outputs a user names (output.go).
package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// NotRegularError is a path that names something other than a regular
// file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return e.Path + " is " + Kind(e.Mode) }

// Kind says what a mode is, in words ("a FIFO", "a character device").
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// OpenRegular opens path for reading if it is a regular file (following
// links), else returns a *NotRegularError; the open itself never blocks.
func OpenRegular(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	// Back to blocking reads (O_NONBLOCK means nothing for a regular file,
	// but keep the descriptor ordinary for whoever reads it).
	if err := unix.SetNonblock(fd, false); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// OpenPrevious opens path, a file sectax reads and then replaces (the
// corpus of corpus boot --out), once for its old content: nil and no error
// when it is absent. A FIFO, a socket, a device or a folder (after links)
// is refused in one line, and the open never blocks (OpenRegular), so a
// FIFO swapped in after a check cannot hang the reader: the caller reads
// the file it opened, not the name again.
func OpenPrevious(path string) (*os.File, error) {
	f, err := OpenRegular(path)
	var nr *NotRegularError
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.As(err, &nr):
		return nil, fmt.Errorf("%s: name a regular file", nr.Error())
	}
	// A socket cannot be opened at all (ENXIO): say what it is.
	if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: name a regular file", (&NotRegularError{Path: path, Mode: fi.Mode()}).Error())
	}
	return nil, fmt.Errorf("cannot use %s: %v", path, Cause(err))
}

// Cause drops the operation and path of a *fs.PathError, *os.LinkError or
// *net.OpError, for a message that names the path itself.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Err
	}
	return err
}

// ForeignFolderError is a folder above a place sectax would make or use
// that another user owns, or that others may write without the sticky
// bit: its owner could swap what sectax keeps below it.
type ForeignFolderError struct {
	Path string
	UID  int
	Mode fs.FileMode
}

func (e *ForeignFolderError) Error() string {
	return fmt.Sprintf("%s is of uid %d with mode %#o, not root's or uid %d's alone", e.Path, e.UID, e.Mode&(fs.ModePerm|fs.ModeSticky), os.Geteuid())
}

// CheckAbove checks the folders above dir, from the nearest that exists
// (links resolved) up to /: each must be root's or this user's, and
// writable by group or others only with the sticky bit (/tmp). A
// *ForeignFolderError names the first that is not. It is the one check
// before sectax makes a private folder of its own (the spool's, the proof
// cache's) below a path the environment chose.
func CheckAbove(dir string) error {
	d := filepath.Dir(filepath.Clean(dir))
	for {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		d = filepath.Dir(d)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return err
	}
	for p := real; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		o := OwnerOf(fi)
		if !fi.IsDir() || o == nil || o.UID != 0 && o.UID != os.Geteuid() ||
			fi.Mode()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			uid := -1
			if o != nil {
				uid = o.UID
			}
			return &ForeignFolderError{Path: p, UID: uid, Mode: fi.Mode()}
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}
