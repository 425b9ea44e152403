package userfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Output is a file the user named for a command's result (-o FILE, the
// charts of --png DIR, the spill file of a run the store could not take).
// It never destroys what the name stands for:
//
//   - a new or regular file is written under a temporary name in the same
//     folder and renamed over the target by Finish, so that it is whole or
//     untouched; an existing file keeps its permission bits (and, when we
//     run as root, its owner and group), a new one gets 0644;
//   - a symbolic link is followed to its final target, which is what gets
//     written (the link stays a link);
//   - a character device (/dev/null, a terminal), a FIFO or a Unix socket is
//     written through: opened for writing without truncation, never
//     replaced by a regular file;
//   - a directory or a block device is refused in one line.
type Output struct {
	name   string // what the user gave
	target string // the final target after symbolic links
	f      io.WriteCloser
	temp   *Temp // the temporary file to rename over target (nil = write-through)

	mu   sync.Mutex // Finish may race with an abandoned writer
	done bool
}

// maxLinks bounds the symbolic links followed, like the kernel's ELOOP.
const maxLinks = 40

// Create opens name for writing as described on Output. Opening a FIFO
// blocks until a reader appears; ctx ends that wait.
func Create(ctx context.Context, name string) (*Output, error) {
	target, fi, err := resolveOutput(name)
	if err != nil {
		return nil, err
	}
	o := &Output{name: name, target: target}
	if fi == nil || fi.Mode().IsRegular() {
		return o, o.createTemp(fi)
	}
	m := fi.Mode()
	switch {
	case m.IsDir():
		return nil, fmt.Errorf("%s is a directory: name a file inside it", describeTarget(name, target))
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return nil, fmt.Errorf("%s is a block device: sectax will not write a report onto a disk; name a file", describeTarget(name, target))
	case m&fs.ModeSocket != 0:
		c, err := (&net.Dialer{}).DialContext(ctx, "unix", target)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %v", describeTarget(name, target), Cause(err))
		}
		o.f = c
		return o, nil
	case m&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		f, err := openWriteThrough(ctx, target)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %v", describeTarget(name, target), Cause(err))
		}
		o.f = f
		return o, nil
	}
	return nil, fmt.Errorf("%s is not a regular file (%v): name a file", describeTarget(name, target), m.Type())
}

// describeTarget names the target, and the link it was reached through.
func describeTarget(name, target string) string {
	if name == target {
		return name
	}
	return fmt.Sprintf("%s (the target of %s)", target, name)
}

// resolveOutput follows symbolic links from name to the final target and
// returns it with its Lstat (nil when it does not exist yet).
func resolveOutput(name string) (string, fs.FileInfo, error) {
	// A pipe or device reached through a "magic" link (/dev/fd/N from a
	// shell's >(…), /dev/stdout) has no path to follow: its link text is
	// "pipe:[…]". Stat follows it; open by the name then reaches it too.
	if fi, err := os.Stat(name); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return name, fi, nil
	}
	p := name
	for range maxLinks {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return p, nil, nil
		case err != nil:
			return "", nil, fmt.Errorf("cannot write %s: %v", describeTarget(name, p), Cause(err))
		case fi.Mode()&fs.ModeSymlink == 0:
			return p, fi, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", nil, fmt.Errorf("cannot write %s: %v", name, Cause(err))
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", nil, fmt.Errorf("cannot write %s: more than %d symbolic links to follow (fix the link)", name, maxLinks)
}

// openWriteThrough opens a device or FIFO for writing without truncating
// it. The open of a FIFO waits for a reader: it runs aside, so that ctx
// (Ctrl-C) still ends the command.
func openWriteThrough(ctx context.Context, path string) (*os.File, error) {
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOCTTY, 0)
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, r.err
	case <-ctx.Done():
		// Close whatever the open returns once a reader comes.
		go func() {
			if r := <-ch; r.f != nil {
				r.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// createTemp makes the temporary file beside target with the mode (and, as
// root, the owner) of the existing file fi, or 0644 for a new one.
func (o *Output) createTemp(fi fs.FileInfo) error {
	// A new report is for reading and sharing (os.CreateTemp would make it
	// private); an existing file keeps what its owner chose.
	mode := fs.FileMode(0o644)
	var owner *Owner
	if fi != nil {
		mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		owner = OwnerOf(fi)
	}
	t, err := NewTemp(o.target, ".sectax-*", mode, owner)
	if Step(err) == StepOwner {
		return fmt.Errorf("cannot write %s: keep its owner: %v", describeTarget(o.name, o.target), Cause(err))
	}
	if err != nil {
		return replaceError(o.name, o.target, err)
	}
	o.f, o.temp = t.f, t
	return nil
}

func (o *Output) Write(p []byte) (int, error) { return o.f.Write(p) }

// Finish closes the output. With err == nil it puts the result in place
// (the temporary file synced to disk and renamed, so that a full disk
// leaves no half-written file); otherwise it removes the temporary file
// and returns err. Only the first call does anything.
func (o *Output) Finish(err error) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return err
	}
	o.done = true
	var cerr error
	switch {
	case o.temp == nil:
		cerr = o.f.Close()
	case err == nil:
		cerr = o.temp.Commit()
	default:
		o.temp.Discard()
	}
	if err != nil {
		return err
	}
	if cerr != nil {
		return replaceError(o.name, o.target, cerr)
	}
	return nil
}

// WriteFile writes data to the file name as Create and Finish do.
func WriteFile(ctx context.Context, name string, data []byte) error {
	o, err := Create(ctx, name)
	if err != nil {
		return err
	}
	_, err = o.Write(data)
	return o.Finish(WriteError(o, err))
}

// WriteError is err, a failed write to o, in words that name the file in
// full (nil when err is nil).
func WriteError(o *Output, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cannot write %s: %v", describeTarget(o.name, o.target), Cause(err))
}

// CreateIn opens the file name, a name sectax chose (a man page, a chart),
// inside the folder dir the user named: unlike Create, nothing at
// dir/name is followed, opened or written through. The result is written
// to a new temporary file in dir (O_EXCL|O_NOFOLLOW, mode 0644) that Finish
// renames over name, so a link (dangling or not), a hard link to another
// file, a FIFO, a socket or a device planted there is replaced, never
// written; a folder at name is refused by the rename. dir's own path is
// the user's and is followed like -o's.
func CreateIn(dir, name string) (*Output, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return nil, fmt.Errorf("cannot write %q in %s: not a file name", name, dir)
	}
	p := filepath.Join(dir, name)
	o := &Output{name: p, target: p}
	if err := o.createTemp(nil); err != nil {
		return nil, err
	}
	return o, nil
}

// WriteNew writes data to path (sectax's own file, such as a run the store
// could not take) as CreateIn and Finish do: under a temporary name in the
// same folder, synced and renamed over path, so that a full disk leaves no
// half-written document. Unlike Create it does not follow a symbolic link
// at path: the rename replaces whatever the name was.
func WriteNew(path string, data []byte) error {
	o, err := CreateIn(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	_, err = o.Write(data)
	return o.Finish(WriteError(o, err))
}
