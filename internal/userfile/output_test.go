package userfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCreateCancel: the wait for a FIFO reader ends with ctx.
func TestCreateCancel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Create(ctx, fifo); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

// TestCreateLink: a link is followed (its target gets the data, the link
// stays a link), an existing file keeps its mode, a failed output leaves
// the target untouched and no temporary file behind.
func TestCreateLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.txt")
	os.Symlink("target.txt", link)
	if err := WriteFile(context.Background(), link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target = %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
	o, err := Create(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	o.Write([]byte("half"))
	if err := o.Finish(errors.New("render failed")); err == nil || err.Error() != "render failed" {
		t.Errorf("Finish = %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target after a failure = %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".sectax-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := WriteFile(context.Background(), dir, nil); err == nil || !strings.Contains(err.Error(), "is a directory: name a file") {
		t.Errorf("directory: %v", err)
	}
}

// TestWriteNew: WriteNew replaces a link instead of following it, and
// makes a new file readable by all (0644).
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	path := filepath.Join(dir, "spill.json")
	os.Symlink(victim, path)
	if err := WriteNew(path, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
		t.Errorf("spill file: %v %v", fi, err)
	}
	if err := WriteNew(filepath.Join(dir, "missing", "x.json"), nil); err == nil || !strings.HasPrefix(err.Error(), "cannot write ") {
		t.Errorf("missing folder: %v", err)
	}
}
