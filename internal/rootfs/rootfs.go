// Package rootfs reads the files of a machine below a root directory: "/"
// for the running machine, or a copy of its /proc, /sys and /etc (a fake
// tree in tests, a tree saved for offline analysis, --root). It is the one
// owner of reading below --root, in the spirit of procfs's FS{root}: a
// value made once for the root that every reader asks.
//
// Below a fake root every lookup goes through os.Root, so a symbolic link
// that leads out of the tree (absolute, or up with ..) is never followed:
// it is an error, recorded as unreadable. Only regular files are read
// (/proc and /sys files all are): the file is stat'ed first, opened
// without blocking and checked again on the descriptor, so a FIFO or a
// device in a tree can neither block nor feed a read forever. Reads are
// capped (MaxRead) and never trust the size stat gives (procfs files say
// 0). Notes records what was absent or unreadable, in one wording.
package rootfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/sectax/sectax/internal/userfile"
)

// MaxRead is the most ReadFile reads of one file.
const MaxRead = 1 << 20

// ErrNotRegular is the cause for a path that names something other than
// a regular file or directory (a FIFO, a device, a socket).
var ErrNotRegular = errors.New("not a regular file")

// FS is a machine's file tree below a root. A nil *FS holds nothing:
// every file in it is absent.
type FS struct {
	root string
	rt   *os.Root // the fake tree; nil for the running machine
}

// Open opens the tree below root ("" or "/" for the running machine).
// The error is a *fs.PathError naming root: it does not exist, is not a
// directory (syscall.ENOTDIR) or cannot be opened.
func Open(root string) (*FS, error) {
	if root == "" {
		root = "/"
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: root, Err: syscall.ENOTDIR}
	}
	f := &FS{root: root}
	if filepath.Clean(root) != "/" {
		if f.rt, err = os.OpenRoot(root); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Close releases the tree.
func (f *FS) Close() error {
	if f == nil || f.rt == nil {
		return nil
	}
	return f.rt.Close()
}

// Root is the directory the tree was opened at.
func (f *FS) Root() string {
	if f == nil {
		return ""
	}
	return f.root
}

// Live reports whether the tree is the running machine's ("/").
func (f *FS) Live() bool { return f != nil && f.rt == nil }

// Rel is p ("/proc/cmdline", "proc/cmdline") relative to the root, as
// os.Root wants it; it never leaves the root ("." for the root itself).
func Rel(p string) string {
	if r := strings.TrimLeft(path.Clean("/"+filepath.ToSlash(p)), "/"); r != "" {
		return r
	}
	return "."
}

// Path is the host path of p below the root (for messages and for
// programs that take a path).
func (f *FS) Path(p string) string {
	return filepath.Join(f.Root(), filepath.FromSlash(Rel(p)))
}

// Stat is os.Stat of p below the root (links followed inside it).
func (f *FS) Stat(p string) (fs.FileInfo, error) {
	switch {
	case f == nil:
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	case f.rt != nil:
		return f.rt.Stat(Rel(p))
	}
	return os.Stat(f.Path(p))
}

// Lstat is os.Lstat of p below the root.
func (f *FS) Lstat(p string) (fs.FileInfo, error) {
	switch {
	case f == nil:
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
	case f.rt != nil:
		return f.rt.Lstat(Rel(p))
	}
	return os.Lstat(f.Path(p))
}

// IsDir reports whether p is a directory (links followed).
func (f *FS) IsDir(p string) bool {
	st, err := f.Stat(p)
	return err == nil && st.IsDir()
}

// Exists reports whether there is anything at p (a link counts, wherever
// it points).
func (f *FS) Exists(p string) bool {
	_, err := f.Lstat(p)
	return err == nil
}

// ReadDir lists the directory p, sorted by name.
func (f *FS) ReadDir(p string) ([]fs.DirEntry, error) {
	switch {
	case f == nil:
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	case f.rt == nil:
		return os.ReadDir(f.Path(p))
	}
	d, err := f.rt.Open(Rel(p))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// Regular returns nil when every one of ps is a regular file, else the
// error of the first that is not: a reader that opens paths itself
// (procfs, sysfs) cannot block on them then.
func (f *FS) Regular(ps ...string) error {
	for _, p := range ps {
		st, err := f.Stat(p)
		if err != nil {
			return err
		}
		if err := f.check(p, st); err != nil {
			return err
		}
	}
	return nil
}

func (f *FS) check(p string, st fs.FileInfo) error {
	switch {
	case st.Mode().IsRegular():
		return nil
	case st.IsDir():
		return &fs.PathError{Op: "read", Path: f.Path(p), Err: syscall.EISDIR}
	}
	return &fs.PathError{Op: "open", Path: f.Path(p), Err: ErrNotRegular}
}

// Open opens the regular file p for reading. Anything else is refused
// before it is opened (ErrNotRegular, EISDIR); the open itself cannot
// block, and the descriptor is checked again after it.
func (f *FS) Open(p string) (*os.File, error) {
	if err := f.Regular(p); err != nil {
		return nil, err
	}
	var fh *os.File
	var err error
	if f.rt != nil {
		fh, err = f.rt.OpenFile(Rel(p), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	} else {
		fh, err = os.OpenFile(f.Path(p), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	}
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err == nil {
		err = f.check(p, st)
	}
	if err != nil {
		fh.Close()
		return nil, err
	}
	return fh, nil
}

// ReadFile reads the regular file p, at most MaxRead bytes.
func (f *FS) ReadFile(p string) ([]byte, error) { return f.ReadFileMax(p, MaxRead) }

// ReadFileMax is ReadFile with another cap (/proc/cpuinfo grows with the
// CPUs).
func (f *FS) ReadFileMax(p string, max int64) ([]byte, error) {
	fh, err := f.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, max))
}

// ReadText is ReadFile as text, trailing white space and NULs removed
// (how /proc and /sys files end).
func (f *FS) ReadText(p string) (string, error) {
	b, err := f.ReadFile(p)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), " \t\r\n\x00"), nil
}

// FileError is a file that exists but could not be read, as a snapshot
// records it.
type FileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Notes collects what a reader found absent or unreadable.
type Notes struct {
	// Absent are the paths (inside the root, "/proc/…") that do not exist.
	Absent []string
	// Unreadable are the paths that exist but could not be read.
	Unreadable []FileError
}

// Note records err for p: absent when it says the file does not exist,
// else unreadable with the cause (ErrText). A nil err records nothing.
func (n *Notes) Note(p string, err error) {
	if err == nil {
		return
	}
	q := "/" + strings.TrimPrefix(p, "/")
	if errors.Is(err, fs.ErrNotExist) {
		n.Absent = append(n.Absent, q)
		return
	}
	n.Unreadable = append(n.Unreadable, FileError{Path: q, Error: ErrText(err)})
}

// ErrText is the cause of a file error without the operation and path it
// carries ("not a regular file", "permission denied"), for a message that
// names the path itself.
func ErrText(err error) string { return userfile.Cause(err).Error() }
