package rootfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

// OpenWrite opens the tree below root ("" or "/" for the running machine)
// for sectax's own writes: every path, below "/" too, is resolved through
// os.Root, so a link that leads out of the tree is never followed, and
// the helpers below refuse a path whose folders are links or belong to
// someone else.
func OpenWrite(root string) (*FS, error) {
	f, err := Open(root)
	if err != nil {
		return nil, err
	}
	if f.rt == nil {
		if f.rt, err = os.OpenRoot(f.root); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// ErrNotOwnFolder is the cause for a folder on the way to a file sectax
// writes that is a link, not a folder, or writable by someone other than
// its owner, who is neither root nor sectax's user.
var ErrNotOwnFolder = errors.New("not a folder sectax may write in (a link, not a folder, or writable by others)")

// checkFolder says why the existing path component p (an Lstat of it) is
// not a folder sectax writes below.
func (f *FS) checkFolder(p string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return &fs.PathError{Op: "mkdir", Path: f.Path(p), Err: ErrNotOwnFolder}
	}
	if !Private(fi, 0o022) {
		return &fs.PathError{Op: "mkdir", Path: f.Path(p), Err: ErrNotOwnFolder}
	}
	return nil
}

// Private reports whether fi belongs to root or to sectax's user and has
// none of the permission bits in mask (0o022: no one else may write it;
// 0o077: no one else may read it either).
func Private(fi fs.FileInfo, mask fs.FileMode) bool {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Geteuid() {
		return false
	}
	return fi.Mode().Perm()&mask == 0
}

// CheckFolders checks every component of the folder p below the root as
// MkdirAll does, making none: a missing one is fs.ErrNotExist.
func (f *FS) CheckFolders(p string) error {
	rel := Rel(p)
	if rel == "." {
		return nil
	}
	cur := ""
	for _, part := range strings.Split(rel, "/") {
		cur = path.Join(cur, part)
		fi, err := f.Lstat(cur)
		if err != nil {
			return err
		}
		if err := f.checkFolder(cur, fi); err != nil {
			return err
		}
	}
	return nil
}

// MkdirAll makes the folder p and its missing parents below the root with
// perm, and returns those it made (the first first). An existing
// component that is a link, not a folder, or not root's or sectax's user's
// alone (ErrNotOwnFolder) is refused; nothing existing is changed (no
// chmod of a folder sectax did not make).
func (f *FS) MkdirAll(p string, perm fs.FileMode) (made []string, err error) {
	if f == nil || f.rt == nil {
		return nil, errors.New("rootfs: MkdirAll on a tree not opened with OpenWrite")
	}
	rel := Rel(p)
	if rel == "." {
		return nil, nil
	}
	cur := ""
	for _, part := range strings.Split(rel, "/") {
		cur = path.Join(cur, part)
		fi, err := f.rt.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if err := f.rt.Mkdir(cur, perm); err != nil {
				return made, err
			}
			made = append(made, cur)
			if fi, err = f.rt.Lstat(cur); err != nil {
				return made, err
			}
		} else if err != nil {
			return made, err
		}
		if err := f.checkFolder(cur, fi); err != nil {
			return made, err
		}
	}
	return made, nil
}

// WriteFile writes data to the file p below the root, a new file of mode
// perm under a temporary name in the same folder (never an existing
// file, never through a link), synced and renamed over p: a link at p is
// replaced, not followed. The folder must exist (MkdirAll).
func (f *FS) WriteFile(p string, data []byte, perm fs.FileMode) error {
	return f.writeFile(p, data, perm, false)
}

// CreateFile is WriteFile for a file that must not exist yet: the
// temporary file is linked to p (which fails with fs.ErrExist when
// something is there, whatever it is), never renamed over it, so of two
// makers at once the first one's file stays and the second gets
// fs.ErrExist.
func (f *FS) CreateFile(p string, data []byte, perm fs.FileMode) error {
	return f.writeFile(p, data, perm, true)
}

func (f *FS) writeFile(p string, data []byte, perm fs.FileMode, excl bool) error {
	if f == nil || f.rt == nil {
		return errors.New("rootfs: WriteFile on a tree not opened with OpenWrite")
	}
	rel := Rel(p)
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := path.Join(path.Dir(rel), "."+path.Base(rel)+".sectax-"+hex.EncodeToString(rnd[:]))
	fh, err := f.rt.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm&^0o077|0o600)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			fh.Close()
			f.rt.Remove(tmp)
		}
	}()
	if err := fh.Chmod(perm); err != nil {
		return err
	}
	if _, err := fh.Write(data); err != nil {
		return err
	}
	if err := fh.Sync(); err != nil {
		return err
	}
	if err := fh.Close(); err != nil {
		return err
	}
	if excl {
		err := f.rt.Link(tmp, rel)
		f.rt.Remove(tmp)
		ok = true
		return err
	}
	if err := f.rt.Rename(tmp, rel); err != nil {
		return err
	}
	ok = true
	return nil
}

// Symlink makes the link p below the root pointing at target, which must
// be relative and stay inside the folder tree (no absolute target).
func (f *FS) Symlink(target, p string) error {
	if f == nil || f.rt == nil {
		return errors.New("rootfs: Symlink on a tree not opened with OpenWrite")
	}
	if path.IsAbs(target) {
		return fmt.Errorf("rootfs: link target %q is absolute", target)
	}
	return f.rt.Symlink(target, Rel(p))
}

// Readlink is the target of the link p below the root.
func (f *FS) Readlink(p string) (string, error) {
	if f == nil || f.rt == nil {
		return "", errors.New("rootfs: Readlink on a tree not opened with OpenWrite")
	}
	return f.rt.Readlink(Rel(p))
}

// Remove removes the file, link or empty folder p below the root (a link
// itself, never what it points at).
func (f *FS) Remove(p string) error {
	if f == nil || f.rt == nil {
		return errors.New("rootfs: Remove on a tree not opened with OpenWrite")
	}
	return f.rt.Remove(Rel(p))
}
