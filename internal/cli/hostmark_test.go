package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sectax/sectax/internal/hostid"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
)

// TestRunCarriesHostMark: a run measured and stored here carries this
// host's mark of its id (the one decide recognises), kept through export
// and import into another store.
func TestRunCarriesHostMark(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SECTAX_DB", filepath.Join(dir, "sectax.db"))
	deps := fixedDeps(fakeRegistry())
	if _, errs, code := sectax(t, deps, "run", "--suite", "quick", "--label", "on", "--seed", "1"); code != 0 {
		t.Fatalf("exit %d: %q", code, errs)
	}
	key, err := hostid.Known("/")
	if err != nil || key.Zero() {
		t.Skipf("this machine has no host key: %v", err)
	}
	check := func(path string) {
		t.Helper()
		db, err := storetest.Ref(t, path).Open(context.Background(), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		r, err := db.Get(context.Background(), "20261130T090000-abcdef")
		if err != nil || !key.Recognises(r.ID, r.HostMark) {
			t.Fatalf("%s: mark %q of %s: %v", path, r.HostMark, r.ID, err)
		}
	}
	check(filepath.Join(dir, "sectax.db"))
	exported := filepath.Join(dir, "runs.json")
	if _, errs, code := sectax(t, deps, "export", "20261130T090000-abcdef", "-o", exported); code != 0 {
		t.Fatalf("export: %d %q", code, errs)
	}
	t.Setenv("SECTAX_DB", filepath.Join(dir, "other.db"))
	if _, errs, code := sectax(t, deps, "import", exported); code != 0 {
		t.Fatalf("import: %d %q", code, errs)
	}
	check(filepath.Join(dir, "other.db"))
}
