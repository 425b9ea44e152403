package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
)

// TestCheckPath: an empty --db is a usage error naming the default; a
// relative file name is made absolute; a URL is kept as it is.
func TestCheckPath(t *testing.T) {
	t.Setenv("SECTAX_DB", "/var/tmp/x.db")
	if _, err := CheckPath(""); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "/var/tmp/x.db") {
		t.Errorf("empty --db: %v, want a usage error naming the default", err)
	}
	t.Setenv("SECTAX_DB", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "")
	if _, err := CheckPath(""); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "SECTAX_DB") {
		t.Errorf("empty --db and no default: %v", err)
	}
	p, err := CheckPath("rel.db")
	if err != nil || !filepath.IsAbs(p) || filepath.Base(p) != "rel.db" {
		t.Errorf("rel.db: %q, %v; want an absolute path", p, err)
	}
	if p, err := CheckPath("postgres://h/db"); err != nil || p != "postgres://h/db" {
		t.Errorf("a URL: %q, %v", p, err)
	}
}

// TestPastRunsNeverCreates: an estimate asks a store that is not there
// for nothing, and does not create it.
func TestPastRunsNeverCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	if r := PastRunsAt(context.Background(), path, "", "quick", "native", ""); r != nil {
		t.Errorf("past runs of a missing store: %v", r)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("PastRunsAt created %s (%v)", path, err)
	}
}
