package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestGolden(t *testing.T) {
	if Updating() {
		t.Skip("-update rewrites instead of comparing")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Golden(r, path, []byte("one\n"))
	if r.failed {
		t.Fatal("equal output failed")
	}
	Golden(r, path, []byte("two\n"))
	if !r.failed {
		t.Fatal("different output passed")
	}
	if b, err := os.ReadFile(path + ".got"); err != nil || string(b) != "two\n" {
		t.Fatalf(".got = %q, %v", b, err)
	}
	r = &recorder{TB: t}
	Golden(r, filepath.Join(dir, "missing.golden"), []byte("x"))
	if !r.failed {
		t.Fatal("a missing golden file passed")
	}
	r = &recorder{TB: t}
	Absent(r, filepath.Join(dir, "missing.golden"))
	if r.failed {
		t.Fatal("Absent failed on a missing file")
	}
	Absent(r, path)
	if !r.failed {
		t.Fatal("Absent passed on an existing file")
	}
}

// TestWithoutCharts: each inline chart becomes one placeholder that keeps
// its label; the page around it is untouched.
func TestWithoutCharts(t *testing.T) {
	page := "<p>a</p><svg role=\"img\" aria-label=\"impact\" width=\"3\"><path d=\"M0,0\"/><text>x</text></svg>\n<p>b</p><svg aria-label=\"two\"><g></g></svg>"
	want := "<p>a</p><svg role=\"img\" aria-label=\"impact\"><!-- chart: tested by its structure --></svg>\n<p>b</p><svg role=\"img\" aria-label=\"two\"><!-- chart: tested by its structure --></svg>"
	if got := string(WithoutCharts([]byte(page))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFixedLenDir(t *testing.T) {
	a, b := FixedLenDir(t), FixedLenDir(t)
	if a == b || len(a) != 120 || len(b) != 120 {
		t.Fatalf("%q (%d), %q (%d): want two folders of 120 characters", a, len(a), b, len(b))
	}
	if fi, err := os.Stat(a); err != nil || !fi.IsDir() {
		t.Fatalf("%s: %v", a, err)
	}
}
