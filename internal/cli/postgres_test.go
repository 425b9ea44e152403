package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/store/pgtest"
)

// TestPostgresStore: the stored-run commands give the same output on a
// PostgreSQL database (--db postgres://…) as on an SQLite file, and a
// database that cannot be reached is one line on stderr, exit 1.
func TestPostgresStore(t *testing.T) {
	c, err := pgtest.Start(context.Background())
	if err != nil {
		if errors.Is(err, pgtest.ErrNotInstalled) && os.Getenv("CI") != "true" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	lite := newCLIEnv(t)
	pgEnv := newCLIEnv(t)
	pgEnv.db = c.NewDatabase(t)
	for _, e := range []*cliEnv{lite, pgEnv} {
		if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
			t.Fatalf("import into %s: %d %s", e.db, code, stderr)
		}
		if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 || !strings.Contains(stderr, "already") {
			t.Fatalf("second import into %s: %d %q", e.db, code, stderr)
		}
	}
	for _, args := range [][]string{
		{"show", "20261130T080000"},
		{"compare", "on", "off", "--format", "json"},
		{"compare", "on", "off"},
		{"export", "off"},
		{"rm", "20261130T08"},
		{"list", "--format", "json"},
	} {
		codeL, outL, errL := lite.run(args...)
		codeP, outP, errP := pgEnv.run(args...)
		outL = strings.ReplaceAll(outL, "$TMP/data/sectax.db", "DB")
		outP = strings.ReplaceAll(outP, strings.Split(pgEnv.db, "?")[0], "DB")
		outP = strings.ReplaceAll(outP, "?host="+strings.Split(pgEnv.db, "?host=")[1], "")
		if codeL != codeP || outL != outP || errL != errP {
			t.Errorf("%v: sqlite and postgres differ: exit %d/%d\n%s%s", args, codeL, codeP, cmp.Diff(outL, outP), cmp.Diff(errL, errP))
		}
	}

	bad := newCLIEnv(t)
	bad.db = "postgres://sectax:s3cret@/sectax?host=" + filepath.Join(t.TempDir(), "nothing")
	code, stdout, stderr := bad.run("list")
	if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "is unreachable") || strings.Contains(stderr, "s3cret") {
		t.Errorf("unreachable: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
