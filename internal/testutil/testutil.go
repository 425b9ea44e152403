// Package testutil holds what sectax's tests share: the one -update flag
// and the golden-file comparison. Only test files import it.
//
// Refresh every golden file from the repository root with
//
//	go test $(go list -f '{{range .TestImports}}{{if eq . "github.com/sectax/sectax/internal/testutil"}}{{$.ImportPath}}{{end}}{{end}}' ./...) -update
//
// (a plain 'go test ./... -update' also reaches packages without golden
// files, whose test binaries do not know the flag and refuse it).
package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Golden compares got with the golden file at path. With -update it writes
// got there instead (creating the directory). On a mismatch it writes
// got to path+".got" (ignored by git), for diffing, and fails t.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if bytes.Equal(got, want) {
		os.Remove(path + ".got")
		return
	}
	os.WriteFile(path+".got", got, 0o644)
	t.Errorf("%s differs (-want +got; got is in %s.got; go test -update refreshes it):\n%s", path, path, cmp.Diff(string(want), string(got)))
}

// Absent is Golden for an output that must not exist: it fails t if the
// file at path exists, and with -update removes it.
func Absent(t testing.TB, path string) {
	t.Helper()
	if *update {
		os.Remove(path)
		return
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s exists but nothing was produced (go test -update removes it)", path)
	}
}
