package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/pgtest"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

// pg is the throw-away PostgreSQL cluster of this test binary, started on
// first use and stopped by TestMain (skipped without PostgreSQL, except
// under CI=true): every test takes fresh databases on it.
var pg pgtest.Shared

// startPG returns the test binary's shared cluster.
func startPG(t *testing.T) *pgtest.Cluster {
	t.Helper()
	return pg.Get(t)
}

// TestPostgresStore: the stored-run commands give the same output on a
// PostgreSQL database (--db postgres://…) as on an SQLite file, and a
// database that cannot be reached is one line on stderr, exit 1.
func TestPostgresStore(t *testing.T) {
	c := startPG(t)
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

// dropping is a scripted workload that stops the PostgreSQL server during
// its third repetition: the network drop of a run into a shared store.
type dropping struct {
	*fake
	calls int
	drop  func()
}

func (d *dropping) Run(ctx context.Context, env workload.Env, p workload.Params) (workload.Sample, error) {
	d.calls++
	if d.calls == 3 {
		d.drop()
	}
	return d.fake.Run(ctx, env, p)
}

// TestPostgresRunSpools: a run into PostgreSQL whose server goes away
// mid-run keeps every sample in the local spool, says how to push it, and
// `sectax push` moves it, once the server is back, into a new database
// exactly once; with the server up, a run lands in PostgreSQL and leaves
// the spool empty.
func TestPostgresRunSpools(t *testing.T) {
	ctx := context.Background()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	c := startPG(t)
	// The drop halts the shared cluster; whatever happens below, the
	// tests after this one find it up again.
	t.Cleanup(func() {
		if err := c.Restart(ctx); err != nil {
			t.Errorf("the shared cluster does not start again: %v", err)
		}
	})
	u := c.NewDatabase(t)
	t.Setenv("SECTAX_DB", u)

	// The server stays up: the run is stored in PostgreSQL, not spooled.
	deps := fixedDeps(fakeRegistry())
	if _, errs, code := sectax(t, deps, "run", "--suite", "quick", "--label", "on", "--seed", "1"); code != 0 || !strings.Contains(testutil.Unwrap(errs), "stored run 20261130T090000-abcdef in postgres://") {
		t.Fatalf("run: exit %d %q", code, errs)
	}
	if out, _, code := sectax(t, deps, "push"); code != 0 || out != "nothing to push: the spool is empty\n" {
		t.Fatalf("push after a stored run: %d %q", code, out)
	}

	reg := workload.NewRegistry(&dropping{fake: &fake{id: "alpha", base: map[string]float64{"usecs_per_op": 1.5}}, drop: c.Halt})
	deps = fixedDeps(reg)
	deps.NewRunID = func() string { return "20261130T100000-dropped" }
	out, errs, code := sectax(t, deps, "run", "--suite", "quick", "--label", "on", "--seed", "1", "--format", "json")
	if code != 1 || strings.Count(strings.TrimSpace(withoutEstimate(errs)), "\n") != 0 || !strings.Contains(errs, "run 20261130T100000-dropped is kept in the spool") ||
		!strings.Contains(errs, "sectax push") || !strings.Contains(out, `"status": "complete"`) {
		t.Fatalf("run with a drop: exit %d\nstderr %q\nstdout %s", code, errs, out)
	}
	spool, err := store.SpoolPath()
	if err != nil {
		t.Fatal(err)
	}
	sp, err := storetest.Ref(t, spool).Open(ctx, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spooled, err := sp.Get(ctx, "20261130T100000-dropped")
	sp.Close()
	if err != nil || spooled.Status != run.StatusComplete || len(spooled.Results[0].Metrics[0].Samples) == 0 {
		t.Fatalf("spooled run: %+v, %v", spooled, err)
	}

	// The server is back: push moves the spooled run into a new database
	// on it.
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SECTAX_DB", c.NewDatabase(t))
	out, errs, code = sectax(t, deps, "push", "--format", "json")
	if code != 0 {
		t.Fatalf("push: %d %q %q", code, out, errs)
	}
	out = regexp.MustCompile(`"store": "postgres://[^"]*"`).ReplaceAllString(out, `"store": "postgres://DB"`)
	testutil.Golden(t, filepath.Join("testdata", "cli", "push-json.golden"), []byte(out))
	out, _, code = sectax(t, deps, "export", "20261130T100000-dropped")
	var want bytes.Buffer
	run.Export(&want, []*run.Run{spooled})
	if code != 0 || out != want.String() {
		t.Fatalf("pushed run differs from the spooled one:\n%s", cmp.Diff(want.String(), out))
	}
	if out, _, code := sectax(t, deps, "push"); code != 0 || out != "nothing to push: the spool is empty\n" {
		t.Fatalf("second push: %d %q", code, out)
	}
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "x.db"))
	if _, errs, code := sectax(t, deps, "push"); code != 2 || !strings.Contains(errs, "PostgreSQL store") {
		t.Fatalf("push to SQLite: %d %q", code, errs)
	}
}

// TestFleet: the synthetic fleet imported into a store gives the fleet
// report (the renderings themselves are report's goldens).
func TestFleet(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", filepath.Join("..", "fleet", "testdata", "synthetic-fleet.json")); code != 0 {
		t.Fatal(stderr)
	}
	e.golden("fleet-bad-format", "fleet", "--format", "yaml")
	for ext, format := range map[string]string{"txt": "text", "md": "md", "html": "html"} {
		want, _ := os.ReadFile(filepath.Join("..", "report", "testdata", "fleet."+ext))
		_, out, _ := e.run("fleet", "--format", format)
		if format == "html" {
			out = string(testutil.PageForGolden(t, []byte(out), "html.css", reportSheet(t)))
		}
		if out != string(want) {
			t.Errorf("fleet --format %s differs from report's golden:\n%s", format, cmp.Diff(string(want), out))
		}
	}
	// A side selector puts all EPYC hosts on against all EPYC hosts off.
	code, out, stderr := e.run("compare", "label:on,cpu:EPYC", "label:off,cpu:EPYC", "--format", "json")
	if code != 0 || !strings.Contains(out, `"unit": "host"`) || !strings.Contains(out, "synthetic-epyc-06") || !strings.Contains(out, "SYNTHETIC DATA") {
		t.Fatalf("compare by selectors: exit %d %s\n%.2000s", code, stderr, out)
	}
}

// TestPostgresPasswordNeverPrinted: with a password in the URL (user part
// or password=), no command prints it, on an empty database, a filled one
// and an unreachable or missing one ('sectax list' printed it in "no runs
// stored in …"). The commands that only read make no tables in the empty
// database.
func TestPostgresPasswordNeverPrinted(t *testing.T) {
	c := startPG(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", "")
	const pw = "Pw0rdX"
	empty := c.NewDatabase(t)
	withPW := strings.Replace(empty, pgtest.User+"@", pgtest.User+":"+pw+"@", 1)
	viaParam := empty + "&password=" + pw
	reads := [][]string{{"list"}, {"list", "--format", "json"}, {"show", "x"}, {"export", "x"}, {"rm", "x"},
		{"compare", "on", "off"}, {"fleet"}, {"push"}, {"export", "--format", "prometheus"}, {"list", "--help"}}
	check := func(db string, args ...string) {
		t.Helper()
		e := newCLIEnv(t)
		e.db = db
		code, stdout, stderr := e.run(args...)
		if strings.Contains(stdout+stderr, pw) {
			t.Errorf("%v: the password is printed (exit %d):\n%s%s", args, code, stdout, stderr)
		}
		if code != 0 && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr not one line: %q", args, code, stderr)
		}
	}
	for _, db := range []string{withPW, viaParam} {
		for _, args := range reads {
			check(db, args...)
		}
	}
	probe, err := storetest.Ref(t, empty).Open(context.Background(), store.Options{})
	if !store.IsNoDatabase(err) {
		t.Errorf("the commands that only read made sectax's tables: %v", err)
	}
	if probe != nil {
		probe.Close()
	}
	made, err := storetest.Ref(t, empty).Open(context.Background(), store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	made.Close()
	check(withPW, "list") // "no runs stored in …"
	check(viaParam, "list")
	check(withPW, "import", "testdata/runs.json")
	for _, db := range []string{withPW, viaParam} {
		for _, args := range append(reads, []string{"show", "20261130T080000"}, []string{"compare", "on", "off", "--format", "md"}) {
			check(db, args...)
		}
	}
	missing := strings.Replace(withPW, "@/"+strings.Split(strings.SplitN(empty, "@/", 2)[1], "?")[0]+"?", "@/nope?", 1)
	unreachable := "postgres://sectax:" + pw + "@/x?host=" + filepath.Join(t.TempDir(), "nothing")
	for _, db := range []string{missing, unreachable, unreachable + "&password=" + pw, "postgres://u:" + pw + "@h:badport/x"} {
		for _, args := range [][]string{{"list"}, {"import", "testdata/runs.json"}, {"run", "--runs", "1"}} {
			check(db, args...)
		}
	}
}
