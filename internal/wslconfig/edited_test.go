package wslconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/exit"
)

// TestEdit: a dry run diffs and writes nothing; Write replaces the file
// with a backup; the expectation follows the edit; a refused parameter is
// a usage error.
func TestEdit(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".wslconfig")
	os.WriteFile(path, []byte("[wsl2]\r\nkernelCommandLine = quiet\r\n"), 0o644)
	loc := Location{Path: path, Source: "--path"}
	e, err := Edit(loc, "set", []string{"mitigations=off"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.Diff, "+kernelCommandLine = quiet mitigations=off") || e.Expect != "off" {
		t.Errorf("dry run: diff %q, expect %q", e.Diff, e.Expect)
	}
	if err := e.Write(time.Now()); err != nil || e.Written != "" {
		t.Errorf("a dry run wrote: %v %q", err, e.Written)
	}
	e, err = Edit(loc, "set", []string{"mitigations=off"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "[wsl2]\r\nkernelCommandLine = quiet mitigations=off\r\n" || e.Written != path || e.Backup == "" {
		t.Errorf("written %q to %q, backup %q", got, e.Written, e.Backup)
	}
	if e, err = Edit(loc, "unset", []string{"mitigations"}, false); err != nil || e.Expect != "auto" {
		t.Errorf("unset: %v, expect %q", err, e.Expect)
	}
	if _, err := Edit(loc, "set", []string{"a b"}, false); exit.Of(err) != exit.Usage {
		t.Errorf("a parameter with a blank: %v (kind %v)", err, exit.Of(err))
	}
	dir := t.TempDir()
	if _, err := (Locator{}).Choose(t.Context(), dir); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("Choose(a folder) = %v", err)
	}
}
