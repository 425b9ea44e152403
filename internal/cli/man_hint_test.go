package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPathHint: after 'sectax man DIR' the user is told how man finds
// the pages when it would not: a folder not named man1 is read with
// man -l, and a man1 folder off man's path gets the MANPATH to export
// (a trailing colon keeps the system's folders).
func TestManPathHint(t *testing.T) {
	dir := t.TempDir()
	if h := manPathHint(context.Background(), filepath.Join(dir, "pages")); !strings.Contains(h, "man -l "+filepath.Join(dir, "pages", "sectax.1")) {
		t.Errorf("a folder not named man1: hint %q", h)
	}
	want := "export MANPATH=" + filepath.Join(dir, "share", "man") + ":"
	if h := manPathHint(context.Background(), filepath.Join(dir, "share", "man", "man1")); !strings.Contains(h, want) {
		t.Errorf("a man1 folder off man's path: hint %q, want %q in it", h, want)
	}
}
