package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
)

// TestParseRef: an empty --db is a usage error naming the default; a
// relative file name is made absolute; a URL is kept as it is, its scheme
// in lowercase, and shown without its password.
func TestParseRef(t *testing.T) {
	t.Setenv("SECTAX_DB", "/var/tmp/x.db")
	if _, err := ParseRef(""); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "/var/tmp/x.db") {
		t.Errorf("empty --db: %v, want a usage error naming the default", err)
	}
	t.Setenv("SECTAX_DB", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "")
	if _, err := ParseRef(""); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "SECTAX_DB") {
		t.Errorf("empty --db and no default: %v", err)
	}
	r, err := ParseRef("rel.db")
	if err != nil || !filepath.IsAbs(r.Path()) || filepath.Base(r.Path()) != "rel.db" || r.String() != r.Path() || r.IsURL() {
		t.Errorf("rel.db: %q, %v; want an absolute path", r, err)
	}
	r, err = ParseRef("POSTGRES://u:Secr3t@h/db")
	if err != nil || !r.IsURL() || r.Path() != "" || r.Locate() != "postgres://u:Secr3t@h/db" || r.String() != "postgres://u@h/db" || !r.HasPassword() {
		t.Errorf("a URL: %q (%q), %v", r, r.Locate(), err)
	}
	for _, f := range []string{"%v", "%s", "%+v", "%#v", "%q"} {
		if got := fmt.Sprintf(f, r); strings.Contains(got, "Secr3t") {
			t.Errorf("%s shows the password: %s", f, got)
		}
	}
	if (Ref{}).MeasuringPID() != 0 || !(Ref{}).IsZero() {
		t.Errorf("the zero Ref names a store")
	}
}

// TestPastRunsNeverCreates: an estimate asks a store that is not there
// for nothing, and does not create it.
func TestPastRunsNeverCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	if r := refOf(path).PastRunsAt(context.Background(), "", "quick", "native", ""); r != nil {
		t.Errorf("past runs of a missing store: %v", r)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("PastRunsAt created %s (%v)", path, err)
	}
}
