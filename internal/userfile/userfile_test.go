package userfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRegular: a regular file (also through a link) opens and reads;
// a FIFO without a writer, a character device that never ends and a
// directory are refused at once, each named.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "image")
	os.WriteFile(file, []byte("bzImage"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(file, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link} {
		f, err := OpenRegular(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "bzImage" {
			t.Errorf("%s read %q", p, b)
		}
	}
	for p, want := range map[string]string{fifo: "is a FIFO", "/dev/zero": "is a character device", dir: "is a directory"} {
		done := make(chan error, 1)
		go func() { _, err := OpenRegular(p); done <- err }()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", p, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the open blocked", p)
		}
	}
	if _, err := OpenRegular(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
	if err := Cause(&os.PathError{Op: "open", Path: "/x", Err: os.ErrPermission}); err != os.ErrPermission {
		t.Errorf("Cause = %v", err)
	}
}
