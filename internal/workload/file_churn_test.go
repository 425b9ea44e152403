package workload

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

func TestFileChurn(t *testing.T) {
	dir := t.TempDir()
	w := FileChurn{}
	for _, fsync := range []string{"no", "yes"} {
		p := moreParams(t, w, map[string]string{"files": "5", "size": "100", "dir": dir, "fsync": fsync})
		if err := w.Preflight(p); err != nil {
			t.Fatal(err)
		}
		s, err := w.Run(context.Background(), testEnv(t), p)
		if err != nil {
			t.Fatal(err)
		}
		checkFinite(t, w, s)
		assertEmptyDir(t, dir)
	}
}

// The default dir is $TMPDIR.
func TestFileChurnDefaultDir(t *testing.T) {
	tmp := privateTmp(t)
	w := FileChurn{}
	p := moreParams(t, w, map[string]string{"files": "3", "size": "0"})
	if got := fileChurnDir(p); got != tmp {
		t.Fatalf("dir %q, want $TMPDIR %q", got, tmp)
	}
	if _, err := w.Run(context.Background(), testEnv(t), p); err != nil {
		t.Fatal(err)
	}
	assertEmptyDir(t, tmp)
}

func TestFileChurnMissingDir(t *testing.T) {
	w := FileChurn{}
	missing := filepath.Join(t.TempDir(), "nope")
	p := moreParams(t, w, map[string]string{"dir": missing})
	assertUsage(t, w.Preflight(p), missing)
	_, err := w.Run(context.Background(), testEnv(t), p)
	assertUsage(t, err, missing)
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	assertUsage(t, w.Preflight(moreParams(t, w, map[string]string{"dir": file})), "not a directory")
}

// Cancelled mid-run: Run returns and the temporary directory is gone.
func TestFileChurnCancelled(t *testing.T) {
	dir := t.TempDir()
	w := FileChurn{}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := w.Run(ctx, testEnv(t), moreParams(t, w, map[string]string{"files": "100000", "size": "0", "dir": dir}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	assertEmptyDir(t, dir)
}

func TestFileChurnFSNote(t *testing.T) {
	if w := fileChurnFSNote("/tmp", unix.TMPFS_MAGIC); !strings.Contains(w, "/tmp is on tmpfs") {
		t.Errorf("tmpfs note %q", w)
	}
	if w := fileChurnFSNote("/mnt/c/x", unix.V9FS_MAGIC); !strings.Contains(w, "/mnt/c/x is on 9p") {
		t.Errorf("9p note %q", w)
	}
	if w := fileChurnFSNote("/home", unix.EXT4_SUPER_MAGIC); w != "" {
		t.Errorf("ext4 note %q", w)
	}
}

// On a real tmpfs the sample carries the note.
func TestFileChurnOnTmpfs(t *testing.T) {
	var fs unix.Statfs_t
	if unix.Statfs("/dev/shm", &fs) != nil || fs.Type != unix.TMPFS_MAGIC {
		t.Skip("no tmpfs at /dev/shm")
	}
	w := FileChurn{}
	s, err := w.Run(context.Background(), testEnv(t), moreParams(t, w, map[string]string{"files": "3", "dir": "/dev/shm"}))
	if err != nil {
		t.Skip(err) // /dev/shm not writable here
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "tmpfs") {
		t.Fatalf("warnings %q, want the tmpfs note", s.Warnings)
	}
}
