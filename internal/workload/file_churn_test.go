package workload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
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
