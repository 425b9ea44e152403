package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store/pgtest"
)

// opener makes a fresh, empty store for one test and returns it with the
// path or URL that reopens it.
type opener func(t *testing.T) (*DB, string)

// pg is the throw-away PostgreSQL cluster of this test binary, started on
// first use (skipped without PostgreSQL, except under CI=true).
var pg pgtest.Shared

func TestMain(m *testing.M) {
	if db := os.Getenv("SECTAX_STORE_TEST_HOLD"); db != "" {
		holdLock(db) // a helper process (beside_test.go), not the tests
	}
	if db := os.Getenv("SECTAX_STORE_TEST_RECORD"); db != "" {
		os.Exit(recordChild(db)) // a helper process (disk_test.go)
	}
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

func openPG(t *testing.T) (*DB, string) {
	t.Helper()
	u := pg.Get(t).NewDatabase(t)
	d, err := refOf(u).Open(context.Background(), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, u
}

// backends are the store engines every test of the suite runs against.
var backends = []struct {
	name string
	open opener
}{
	{"sqlite", openTemp},
	{"postgres", openPG},
}

// suite is the store's behaviour, the same for every backend.
var suite = []struct {
	name string
	test func(*testing.T, opener)
}{
	{name: "SinkInterruptedKeepsSamples", test: testSinkInterruptedKeepsSamples},
	{name: "ExportImportRoundTrip", test: testExportImportRoundTrip},
	{name: "Resolve", test: testResolve},
	{name: "Delete", test: testDelete},
	{name: "ImportIsAllOrNothing", test: testImportIsAllOrNothing},
	{name: "UnknownEnvFieldsSurvive", test: testUnknownEnvFieldsSurvive},
	{name: "RunnerIntoStore", test: testRunnerIntoStore},
	{name: "ReopenKeepsData", test: testReopenKeepsData},
	{name: "NewerSchemaRefused", test: testNewerSchemaRefused},
	{name: "ConcurrentImportSameRuns", test: testConcurrentImportSameRuns},
	{name: "ConcurrentWriters", test: testConcurrentWriters},
	{name: "Selectors", test: testSelectors},
	{name: "CampaignRoundTrip", test: testCampaignRoundTrip},
	{name: "GetManyAndListBrief", test: testGetManyAndListBrief},
	{name: "HugeTextsNotRead", test: testHugeTextsNotRead},
}

func TestBackends(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // the two engines at once: each test has its own database
			for _, c := range suite {
				t.Run(c.name, func(t *testing.T) { c.test(t, b.open) })
			}
		})
	}
}

// testReopenKeepsData: a second Open applies no migration again and sees
// the runs of the first.
func testReopenKeepsData(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, path := openTemp(t)
	if v, err := d.Version(ctx); err != nil || v != SchemaVersion() {
		t.Fatalf("version = %d, %v; want %d", v, err, SchemaVersion())
	}
	if err := d.Begin(testRun("r1", "on")); err != nil {
		t.Fatal(err)
	}
	d2, err := refOf(path).Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if v, _ := d2.Version(ctx); v != SchemaVersion() {
		t.Fatalf("version after reopen = %d", v)
	}
	if l, err := d2.List(ctx); err != nil || len(l) != 1 || l[0].ID != "r1" {
		t.Fatalf("list after reopen = %v, %v", l, err)
	}
}

func testNewerSchemaRefused(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, path := openTemp(t)
	q := "PRAGMA user_version = 99"
	if d.dialect == postgresDialect {
		q = "UPDATE " + pgSchemaTable + " SET version = 99"
	}
	if _, err := d.db.ExecContext(ctx, q); err != nil {
		t.Fatal(err)
	}
	_, err := refOf(path).Open(ctx, Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99, newer than this sectax knows") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
}

// testConcurrentImportSameRuns: hosts importing the same runs at the same
// moment, each through its own connection, store every run exactly once;
// the others are told it is already stored, without an error.
func testConcurrentImportSameRuns(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, path := openTemp(t)
	var docs []run.Doc
	for i := range 5 {
		docs = append(docs, run.Doc{Run: testRun(fmt.Sprintf("shared-%d", i), "on")})
	}
	const hosts = 6
	results := make([]ImportResult, hosts)
	errs := make([]error, hosts)
	var wg sync.WaitGroup
	for h := range hosts {
		hd, err := refOf(path).Open(ctx, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer hd.Close()
		// Each host imports the runs in a different order.
		mine := append([]run.Doc(nil), docs...)
		for i := range mine {
			j := (i + h) % len(mine)
			mine[i], mine[j] = mine[j], mine[i]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[h], errs[h] = hd.Import(ctx, mine)
		}()
	}
	wg.Wait()
	imported := map[string]int{}
	for h := range hosts {
		if errs[h] != nil {
			t.Fatalf("host %d: %v", h, errs[h])
		}
		if len(results[h].Imported)+len(results[h].Skipped) != len(docs) {
			t.Fatalf("host %d: %+v", h, results[h])
		}
		for _, id := range results[h].Imported {
			imported[id]++
		}
	}
	for _, doc := range docs {
		if imported[doc.Run.ID] != 1 {
			t.Errorf("run %s imported %d times", doc.Run.ID, imported[doc.Run.ID])
		}
		got, err := d.Get(ctx, doc.Run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(exportJSON(t, doc.Run)), string(exportJSON(t, got))); diff != "" {
			t.Fatalf("run %s (-want +got):\n%s", doc.Run.ID, diff)
		}
	}
	var n int
	if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM samples").Scan(&n); err != nil || n != 5*9 {
		t.Fatalf("samples = %d, %v; want %d (no duplicates)", n, err, 5*9)
	}
}

// testConcurrentWriters: several hosts run at once (Begin, samples one by
// one, Finish), each into its own connection; every run is stored intact.
func testConcurrentWriters(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, path := openTemp(t)
	const hosts, runs = 4, 3
	var wg sync.WaitGroup
	errs := make(chan error, hosts)
	want := map[string]*run.Run{}
	var mu sync.Mutex
	for h := range hosts {
		hd, err := refOf(path).Open(ctx, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer hd.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range runs {
				r, err := writeLikeRunner(hd, fmt.Sprintf("h%d-r%d", h, i))
				if err != nil {
					errs <- fmt.Errorf("host %d: %w", h, err)
					return
				}
				mu.Lock()
				want[r.ID] = r
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	l, err := d.List(ctx)
	if err != nil || len(l) != hosts*runs {
		t.Fatalf("%d runs stored, %v; want %d", len(l), err, hosts*runs)
	}
	for id, r := range want {
		got, err := d.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(exportJSON(t, r)), string(exportJSON(t, got))); diff != "" {
			t.Fatalf("run %s (-want +got):\n%s", id, diff)
		}
	}
}

// writeLikeRunner stores testRun(id) as the runner does: Begin without
// samples, one Sample per repetition, Finish.
func writeLikeRunner(d *DB, id string) (*run.Run, error) {
	full := testRun(id, "on")
	r := testRun(id, "on")
	r.Status = run.StatusRunning
	for i := range r.Results {
		for j := range r.Results[i].Metrics {
			r.Results[i].Metrics[j].Samples = []float64{}
		}
	}
	if err := d.Begin(r); err != nil {
		return nil, err
	}
	for i, res := range full.Results {
		for k := range res.Metrics[0].Samples {
			v := map[string]float64{}
			for j, m := range res.Metrics {
				v[m.Name] = m.Samples[k]
				r.Results[i].Metrics[j].Samples = append(r.Results[i].Metrics[j].Samples, m.Samples[k])
			}
			if err := d.Sample(r, i, v); err != nil {
				return nil, err
			}
		}
	}
	r.Status = run.StatusComplete
	return r, d.Finish(r)
}

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT 1":                            "SELECT 1",
		"INSERT INTO t(a,b) VALUES (?,?)":     "INSERT INTO t(a,b) VALUES ($1,$2)",
		"WHERE a=?1 AND b=?2 OR c=?1":         "WHERE a=$1 AND b=$2 OR c=$1",
		"SELECT '?' , \"a?\", ? -- what?\n ?": "SELECT '?' , \"a?\", $1 -- what?\n $2",
		"SELECT 'unterminated ?":              "SELECT 'unterminated ?",
	} {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsURL(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://h/db": true, "POSTGRESQL://h/db": true, "/var/lib/sectax.db": false,
		"postgres.db": false, "./postgres://x": false,
	} {
		if refOf(in).IsURL() != want {
			t.Errorf("IsURL(%q) = %v", in, !want)
		}
	}
}

// TestPostgresBadConnections: every way of not reaching a usable database
// is one line naming the cause, without the password.
func TestPostgresBadConnections(t *testing.T) {
	c := pg.Get(t)
	ctx := context.Background()
	foreign := c.NewDatabase(t)
	fd, err := refOf(foreign).Open(ctx, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	// Make it look like another program's database: drop ours, add a "runs".
	for _, q := range []string{"DROP TABLE samples, metrics, results, runs, " + pgSchemaTable, "CREATE TABLE runs(x int)"} {
		if _, err := fd.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// A role that must give a password (scram), for "authentication failed".
	hba := filepath.Join(c.Dir(), "data", "pg_hba.conf")
	conf, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hba, append([]byte("local all pwuser scram-sha-256\n"), conf...), 0o600); err != nil {
		t.Fatal(err)
	}
	// The cluster is the test binary's, shared: leave it as found (the
	// role gone, pg_hba.conf as it was), so that the test runs again
	// under -count=N and no other test meets pwuser's rule.
	t.Cleanup(func() {
		if err := os.WriteFile(hba, conf, 0o600); err != nil {
			t.Error(err)
		}
		admin, err := sql.Open("pgx", c.URL("postgres"))
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close()
		for _, q := range []string{"DROP ROLE IF EXISTS pwuser", "SELECT pg_reload_conf()"} {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				t.Error(err)
			}
		}
	})
	for _, q := range []string{"CREATE ROLE pwuser LOGIN PASSWORD 'right'", "SELECT pg_reload_conf()"} {
		if _, err := fd.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// pg_reload_conf only signals the postmaster: until it has read
	// pg_hba.conf again, pwuser still gets in on trust, and the "wrong
	// password" case found a database instead of a refusal whenever the
	// machine was busy (the test's old flakiness). Wait for the rule to
	// hold, by its effect: a connection with the wrong password refused.
	wrongPW := strings.Replace(c.URL("postgres"), pgtest.User+"@", "pwuser:s3cret@", 1)
	waitUntil := time.Now().Add(time.Minute)
	for {
		probe, err := sql.Open("pgx", wrongPW)
		if err != nil {
			t.Fatal(err)
		}
		err = probe.PingContext(ctx)
		probe.Close()
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "28P01" {
			break
		}
		if time.Now().After(waitUntil) {
			t.Fatalf("the server never applied the scram rule for pwuser: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	nowhere := t.TempDir()
	cases := []struct{ name, url, want string }{
		{"missing database", strings.Replace(c.URL("nope"), "@/", ":s3cret@/", 1), `database "nope" does not exist; create it`},
		{"no server", "postgres://sectax:s3cret@/x?host=" + filepath.Join(nowhere), "is unreachable ("},
		{"unknown host", "postgres://sectax:s3cret@no-such-host.invalid/x", `host "no-such-host.invalid" is unknown`},
		{"bad url", "postgres://sectax:s3cret@h:notaport/x", "is not a valid PostgreSQL URL"},
		{"wrong password", wrongPW, "authentication failed"},
		{"foreign", foreign, `already has a table "runs" that is not sectax's`},
	}
	fd.Close()
	for _, cs := range cases {
		_, err := refOf(cs.url).Open(ctx, Options{})
		if err == nil || !strings.Contains(err.Error(), cs.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: err = %v, want one line with %q and no password", cs.name, err, cs.want)
		}
		var nf *NotFoundError
		if errors.As(err, &nf) {
			t.Errorf("%s: %v", cs.name, err)
		}
	}
}

// BenchmarkPostgresLoad is the load test of a shared store: 16 hosts
// (each its own connection pool) write 50 runs each at once, as the runner
// does (Begin, one transaction per repetition, Finish), into one
// PostgreSQL database; then every run must be there exactly once and
// intact. It reports runs/s and transactions/s. The database is a fresh
// one on the throw-away cluster, or $SECTAX_LOAD_DB (an empty database).
//
//	go test -run '^$' -bench PostgresLoad -benchtime 1x ./internal/store/
func BenchmarkPostgresLoad(b *testing.B) {
	const writers, perWriter = 16, 50
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		u := os.Getenv("SECTAX_LOAD_DB")
		if u == "" {
			u = pg.Get(b).NewDatabase(b)
		}
		d, err := refOf(u).Open(ctx, Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		hosts := make([]*DB, writers)
		for h := range hosts {
			if hosts[h], err = refOf(u).Open(ctx, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		prefix := fmt.Sprintf("load%d-", i)
		b.StartTimer()
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		written := make([][]*run.Run, writers)
		for h, hd := range hosts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range perWriter {
					r, err := writeLikeRunner(hd, fmt.Sprintf("%sh%02d-r%02d", prefix, h, k))
					if err != nil {
						errs <- fmt.Errorf("writer %d run %d: %w", h, k, err)
						return
					}
					written[h] = append(written[h], r)
				}
			}()
		}
		wg.Wait()
		b.StopTimer()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		var n, distinct, samples int
		if err := d.db.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT id) FROM runs WHERE id LIKE ?", prefix+"%").Scan(&n, &distinct); err != nil {
			b.Fatal(err)
		}
		if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM samples WHERE run_id LIKE ?", prefix+"%").Scan(&samples); err != nil {
			b.Fatal(err)
		}
		if n != writers*perWriter || distinct != n || samples != n*9 {
			b.Fatalf("%d runs (%d distinct), %d samples; want %d runs, %d samples", n, distinct, samples, writers*perWriter, writers*perWriter*9)
		}
		for _, rs := range written {
			for _, want := range rs {
				got, err := d.Get(ctx, want.ID)
				if err != nil {
					b.Fatal(err)
				}
				if w, g := exportJSON(b, want), exportJSON(b, got); !bytes.Equal(w, g) {
					b.Fatalf("run %s not intact:\n%s", want.ID, cmp.Diff(string(w), string(g)))
				}
			}
		}
		for _, hd := range hosts {
			hd.Close()
		}
		d.Close()
	}
	// Per run: Begin, 6 repetitions (3 per result), Finish.
	runs := float64(writers * perWriter * b.N)
	b.ReportMetric(runs/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(runs*8/b.Elapsed().Seconds(), "tx/s")
	b.ReportMetric(0, "ns/op")
}

// testGetManyAndListBrief: GetMany reads in a few queries what Get reads
// run by run, in the order asked, across batches (and Envs what Env reads);
// ListBrief keeps only
// the environment fields lists and selectors read.
func testGetManyAndListBrief(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	var ids []string
	for i := 0; i < getBatch+3; i++ {
		r := testRun(fmt.Sprintf("r%04d", i), "on")
		if i%2 == 1 {
			r.Results = r.Results[:1]
			r.Env.Hostname = "box"
		}
		if i == 7 {
			r.Env = nil
			r.Results = nil
		}
		if err := d.Begin(r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	slices.Reverse(ids)
	many, err := d.GetMany(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(many) != len(ids) {
		t.Fatalf("GetMany returned %d runs, want %d", len(many), len(ids))
	}
	for i, id := range ids {
		one, err := d.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(exportJSON(t, one)), string(exportJSON(t, many[i]))); diff != "" {
			t.Fatalf("GetMany's %s differs from Get's (-Get +GetMany):\n%s", id, diff)
		}
	}
	var nf *NotFoundError
	if _, err := d.GetMany(ctx, []string{"r0001", "nope"}); !errors.As(err, &nf) || nf.Ref != "nope" {
		t.Fatalf("GetMany of a missing id: %v, want a NotFoundError for it", err)
	}
	// Runs stored with the same environment share its decoded Snapshot;
	// runs with another do not.
	if many[0].Env != many[2].Env || many[0].Env == many[1].Env {
		t.Errorf("GetMany: runs of one environment do not share one *Snapshot, or runs of two do")
	}
	envs, err := d.Envs(ctx, ids)
	if err != nil || len(envs) != len(ids) {
		t.Fatalf("Envs: %d environments, %v; want %d", len(envs), err, len(ids))
	}
	for i, id := range ids {
		one, err := d.Env(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(one, envs[i]); diff != "" {
			t.Fatalf("Envs' %s differs from Env's (-Env +Envs):\n%s", id, diff)
		}
	}
	if _, err := d.Envs(ctx, []string{"r0001", "nope"}); !errors.As(err, &nf) || nf.Ref != "nope" {
		t.Fatalf("Envs of a missing id: %v, want a NotFoundError for it", err)
	}
	brief, err := d.ListBrief(ctx)
	if err != nil {
		t.Fatal(err)
	}
	full, err := d.List(ctx)
	if err != nil || len(full) != len(brief) {
		t.Fatalf("List: %d runs, %v; ListBrief: %d", len(full), err, len(brief))
	}
	allIDs, err := d.RunIDs(ctx)
	if err != nil || len(allIDs) != len(full) {
		t.Fatalf("RunIDs: %d ids, %v; List: %d runs", len(allIDs), err, len(full))
	}
	for i := range brief {
		if allIDs[i] != full[i].ID {
			t.Fatalf("RunIDs[%d] = %s, List's run %d is %s: not List's order", i, allIDs[i], i, full[i].ID)
		}
		if brief[i].ID != full[i].ID || brief[i].Label != full[i].Label || brief[i].Status != full[i].Status {
			t.Fatalf("run %d: brief %+v, full %+v", i, brief[i], full[i])
		}
		for _, path := range BriefEnvPaths {
			sel := strings.Split(path, ".")
			if got, want := envString(brief[i].Env, sel...), envString(full[i].Env, sel...); got != want {
				t.Errorf("%s: %s = %q in ListBrief, %q in List", brief[i].ID, path, got, want)
			}
		}
		if _, ok := brief[i].Env["cmdline"]; ok {
			t.Fatalf("%s: ListBrief kept the command line", brief[i].ID)
		}
	}
	if brief[7].Env != nil {
		t.Errorf("a run without an environment: brief env %v", brief[7].Env)
	}
}
