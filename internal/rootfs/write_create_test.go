package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCreateFileExclusive: CreateFile makes a new file and never replaces
// what is at its name (a file, a link, a dangling link): fs.ErrExist, the
// name unchanged, no temporary file left.
func TestCreateFileExclusive(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWrite(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.CreateFile("key", []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := w.CreateFile("key", []byte("second"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second create: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "key")); string(b) != "first" {
		t.Fatalf("key holds %q", b)
	}
	os.Symlink("/nonexistent-sectax-target", filepath.Join(dir, "dangling"))
	if err := w.CreateFile("dangling", []byte("x"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("over a dangling link: %v", err)
	}
	if _, err := os.Lstat("/nonexistent-sectax-target"); err == nil {
		t.Fatal("created through the link")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("left: %v", ents)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "key")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}
