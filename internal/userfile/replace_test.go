package userfile

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReplace: the data reaches the target with the mode and owner asked
// for; what was at the target (a FIFO, which an open would block on) is
// never opened but replaced; a failed step is named, leaves the target as
// it was and no temporary file behind.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.prom")
	if err := unix.Mkfifo(target, 0o600); err != nil {
		t.Fatal(err)
	}
	owner := &Owner{UID: os.Getuid(), GID: os.Getgid()}
	if os.Geteuid() == 0 {
		owner = &Owner{UID: 1234, GID: 5678}
	}
	if err := Replace(target, ".out-*", []byte("new\n"), 0o640, owner); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(target)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
		t.Fatalf("target after Replace: %v, %v", fi, err)
	}
	if got := OwnerOf(fi); *got != *owner {
		t.Errorf("owner %+v, want %+v", *got, *owner)
	}
	if data, _ := os.ReadFile(target); string(data) != "new\n" {
		t.Errorf("target holds %q", data)
	}

	// A directory cannot be renamed over: the rename fails, the directory
	// stays, the temporary file goes.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Replace(sub, ".sub-*", []byte("x"), 0o644, nil); Step(err) != StepRename {
		t.Errorf("Replace over a directory: %v (step %q)", err, Step(err))
	}
	if err := Replace(filepath.Join(dir, "missing", "f"), ".f-*", []byte("x"), 0o644, nil); Step(err) != StepCreate {
		t.Errorf("Replace in a missing folder: %v (step %q)", err, Step(err))
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Errorf("the directory did not stay: %v, %v", fi, err)
	}
}
