package wslconfig

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/userfile"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Target is where a .wslconfig path really is: the path itself, or the
// file a symbolic link points to, which is what gets replaced.
func Target(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	t, err := filepath.EvalSymlinks(path)
	if err != nil {
		dest, _ := os.Readlink(path)
		return "", fmt.Errorf("%s is a symbolic link to %s, which cannot be reached (%v); fix the link or pass --path with the real file", path, dest, userfile.Cause(err))
	}
	return t, nil
}

// ReadFile reads the file at path (through a symbolic link). A missing
// file is not an error: exists is false and data empty, as WSL treats it.
func ReadFile(path string) (data []byte, exists bool, err error) {
	t, err := Target(path)
	if err != nil {
		return nil, false, err
	}
	data, err = readLimited(t)
	var nr *NotRegularError
	switch {
	case errors.As(err, &nr):
		return nil, false, err
	case errors.Is(err, fs.ErrNotExist):
		if _, derr := os.Stat(filepath.Dir(t)); derr != nil {
			return nil, false, fmt.Errorf("the folder %s does not exist (%v); check the path or pass --path", filepath.Dir(t), userfile.Cause(derr))
		}
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("cannot read %s: %v", t, userfile.Cause(err))
	}
	return data, true, nil
}

// readLimited reads at most MaxSize+1 bytes: enough for Parse to refuse
// a file that is too large without reading all of it. Only a regular file
// is read (userfile.OpenRegular: a FIFO cannot hang it, a device or a
// directory is refused in one line).
func readLimited(path string) ([]byte, error) {
	f, err := userfile.OpenRegular(path)
	var nr *userfile.NotRegularError
	if errors.As(err, &nr) {
		return nil, &NotRegularError{nr}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxSize+1))
}

// NotRegularError is a .wslconfig path that names something other than a
// regular file.
type NotRegularError struct{ *userfile.NotRegularError }

func (e *NotRegularError) Error() string {
	return e.NotRegularError.Error() + ", not a .wslconfig file: pass --path with the file itself"
}

// Written says what WriteFile did.
type Written struct {
	// Path is the file that was replaced (the link target for a link).
	Path string
	// Backup is the copy of the previous content ("" for a new file).
	Backup string
}

// WriteFile replaces the file at path with data. It checks that the file
// still holds old (nil: that it still does not exist), copies it to a
// timestamped backup beside it, writes data to a temporary file in the same
// folder, syncs it, gives it the old file's mode, and renames it over the
// file; a symbolic link is followed and stays a link. On any failure the
// original is left as it was and the temporary file and the backup are
// removed.
func WriteFile(path string, old, data []byte, now time.Time) (w Written, err error) {
	target, err := Target(path)
	if err != nil {
		return w, err
	}
	w.Path = target
	dir := filepath.Dir(target)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a folder")
		}
		return w, fmt.Errorf("cannot write %s: the folder %s does not exist (%v); check the path or pass --path", target, dir, userfile.Cause(err))
	}
	mode := fs.FileMode(0o644)
	var owner *userfile.Owner // as root, the replaced file keeps its owner
	cur, err := os.ReadFile(target)
	exists := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if old != nil {
			return w, fmt.Errorf("%s disappeared while sectax was editing it; run the command again", target)
		}
	case err != nil:
		return w, fmt.Errorf("cannot read %s: %v", target, userfile.Cause(err))
	case old == nil || !bytes.Equal(cur, old):
		return w, fmt.Errorf("%s changed while sectax was editing it (another program wrote it); run the command again", target)
	}
	if exists {
		fi, err := os.Stat(target)
		if err != nil {
			return w, fmt.Errorf("cannot read %s: %v", target, userfile.Cause(err))
		}
		if !fi.Mode().IsRegular() {
			return w, fmt.Errorf("%s is not a regular file", target)
		}
		mode = fi.Mode().Perm()
		owner = userfile.OwnerOf(fi)
		if mode&0o222 == 0 || unix.Access(target, unix.W_OK) != nil {
			return w, fmt.Errorf("%s is read-only (mode %04o); make it writable (Windows: clear the Read-only box in its Properties; Linux: chmod u+w) and run the command again", target, mode)
		}
	}
	fail := func(what string, err error) (Written, error) {
		return Written{}, fmt.Errorf("cannot write %s: %s: %v; the file is unchanged", target, what, userfile.Cause(err))
	}
	backup := ""
	if exists {
		backup, err = writeBackup(target, cur, mode, now)
		if err != nil {
			return fail("cannot make the backup", err)
		}
	}
	defer func() {
		if err != nil && backup != "" {
			os.Remove(backup)
		}
	}()
	if err = userfile.Replace(target, "."+filepath.Base(target)+".sectax-tmp-*", data, mode, owner); err != nil {
		return fail(replaceSteps[userfile.Step(err)], err)
	}
	w.Backup = backup
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: some file systems (drvfs) do not sync folders
		d.Close()
	}
	return w, nil
}

// replaceSteps word each step of the replacement that can fail.
var replaceSteps = map[string]string{
	userfile.StepCreate: "cannot create a temporary file beside it",
	userfile.StepWrite:  "writing the new content",
	userfile.StepSync:   "syncing the new content",
	userfile.StepMode:   "setting the file mode",
	userfile.StepOwner:  "keeping the file owner",
	userfile.StepClose:  "closing the temporary file",
	userfile.StepRename: "replacing the file",
}

// writeBackup copies data to PATH.sectax-YYYYMMDD-HHMMSS.bak (UTC, no
// colons: the file usually lives on NTFS), adding -2, -3… if that exists.
func writeBackup(target string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := target + ".sectax-" + now.UTC().Format("20060102-150405")
	for i := 1; i < 100; i++ {
		name := base + ".bak"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.bak", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode|0o200)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("too many backups named %s*", base)
}
