package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// TestNothingStoredYet: the commands that read what is stored answer a
// missing database alike: exit 0, one note on stderr that says nothing is
// stored yet and how to store something, and no database made.
func TestNothingStoredYet(t *testing.T) {
	e := newCLIEnv(t)
	for _, args := range [][]string{
		{"list"}, {"fleet"}, {"attribute", "report"}, {"campaign", "report"},
	} {
		code, _, stderr := e.run(args...)
		stderr = testutil.Unwrap(stderr)
		if code != 0 || !strings.HasPrefix(stderr, "sectax: no runs stored yet (no database at $TMP/data/sectax.db); ") ||
			strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s with no database: exit %d, stderr %q; want exit 0 and one note", strings.Join(args, " "), code, stderr)
		}
	}
	if _, err := os.Stat(e.db); !os.IsNotExist(err) {
		t.Errorf("a command made a database: %v", err)
	}
}
