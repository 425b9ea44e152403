package userfile

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// TestOpenPrevious: a file read then replaced may be absent (no file) or
// regular (also through a link, opened); a FIFO, a socket, a device, a
// folder and a link to one are refused in one line, without blocking.
func TestOpenPrevious(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	os.WriteFile(reg, nil, 0o644)
	fifo := filepath.Join(dir, "fifo")
	unix.Mkfifo(fifo, 0o600)
	os.Symlink(reg, filepath.Join(dir, "toreg"))
	os.Symlink(fifo, filepath.Join(dir, "tofifo"))
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, ok := range []string{reg, filepath.Join(dir, "toreg"), filepath.Join(dir, "absent")} {
		f, err := OpenPrevious(ok)
		if err != nil || (f == nil) != strings.HasSuffix(ok, "absent") {
			t.Errorf("OpenPrevious(%s): %v, %v", ok, f, err)
		}
		if f != nil {
			f.Close()
		}
	}
	for _, bad := range []string{fifo, filepath.Join(dir, "tofifo"), filepath.Join(dir, "sock"), "/dev/null", dir} {
		f, err := OpenPrevious(bad)
		if f != nil || err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "name a regular file") {
			t.Errorf("OpenPrevious(%s) = %v, %v", bad, f, err)
		}
	}
}
