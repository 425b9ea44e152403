package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

var _ measure.Sink = (*DB)(nil)

func testRun(id, label string) *run.Run {
	started := time.Date(2026, 11, 30, 6, 0, 0, 123456789, time.UTC)
	return &run.Run{
		Schema: run.Schema, ID: id, Label: label, Started: started,
		Finished: started.Add(90 * time.Second), Status: run.StatusComplete,
		Suite: "quick", Engine: "native", ToolVersion: "0.1.0-test", Repetitions: 3, Warmup: 1, Seed: 42,
		Env: &sysinfo.Snapshot{Kernel: sysinfo.Kernel{Release: "6.18.0-test"},
			Cmdline: sysinfo.Cmdline{Raw: "root=/dev/sda1 mitigations=off"}},
		Results: []run.Result{
			{Workload: "syscall-basic", Engine: "native", Params: map[string]any{"loops": int64(1000)},
				Metrics: []run.Metric{
					{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: []float64{0.2, 0.19, 0.21}},
					{Name: "ops_per_sec", Unit: "ops/s", Better: run.Higher, Samples: []float64{5e6, 5.2e6, 4.8e6}},
				},
				Warnings: []string{"first repetition was slower"}},
			{Workload: "sched-pipe", Params: map[string]any{"loops": int64(100), "mode": "process"},
				Metrics:   []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: []float64{8.1, 8.2, 8.0}}},
				Failures:  []string{"repetition 4: worker exited 1"},
				Footprint: &run.Footprint{Processes: 2, Threads: 2, RSSKiB: 4096, PSSKiB: 512}},
		},
		Notes: []string{"go-build skipped: no go toolchain"},
	}
}

func openTemp(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub", "sectax.db")
	d, err := refOf(path).Open(context.Background(), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, path
}

func exportJSON(t testing.TB, runs ...*run.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := run.Export(&b, runs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMigrationsFromEmpty(t *testing.T) {
	ctx := context.Background()
	d, path := openTemp(t)
	v, err := d.Version(ctx)
	if err != nil || v != SchemaVersion() || v < 1 {
		t.Fatalf("version = %d, %v; want %d", v, err, SchemaVersion())
	}
	var mode string
	if err := d.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var bt int
	if err := d.db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&bt); err != nil || bt != int(BusyTimeout.Milliseconds()) {
		t.Fatalf("busy_timeout = %d, %v", bt, err)
	}
	if err := d.Begin(testRun("r1", "on")); err != nil {
		t.Fatal(err)
	}
	d.Close()
	// Reopening applies nothing again and keeps the data.
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

// TestOddPath: a path with URI metacharacters opens the file it names.
func TestOddPath(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "we?ird#100%", "s.db")
	d, err := refOf(path).Open(ctx, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Begin(testRun("r1", "on")); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("database not at %s: %v", path, err)
	}
	release, err := refOf(filepath.Join(t.TempDir(), "new", "dir", "s.db")).Lock()
	if err != nil {
		t.Fatalf("lock in a directory not yet made: %v", err)
	}
	release()
}

// v1Store makes a store of schema 1 at path, then runs extra on it.
func v1Store(t *testing.T, path string, extra ...string) {
	t.Helper()
	o, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	v1, err := migrationFS.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append([]string{string(v1), "PRAGMA application_id = " + strconv.Itoa(ApplicationID), "PRAGMA user_version = 1"}, extra...) {
		if _, err := o.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMigrateFromV1: a database made by schema 1 is migrated forward and
// keeps its runs; the extra fields are empty for them.
func TestMigrateFromV1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	v1Store(t, path, `INSERT INTO runs(id, label, started, status) VALUES ('old', 'on', '2026-01-02T03:04:05Z', 'complete')`,
		`INSERT INTO results(run_id, idx, workload) VALUES ('old', 0, 'syscall-basic')`)
	d, err := refOf(path).Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if v, _ := d.Version(ctx); v != SchemaVersion() || v < 2 {
		t.Fatalf("version %d", v)
	}
	r, err := d.Get(ctx, "old")
	if err != nil || r.Label != "on" || len(r.Results) != 1 || r.Notes != nil || r.Results[0].Footprint != nil {
		t.Fatalf("old run after migration: %+v, %v", r, err)
	}
}

func TestOpenMissingWithoutCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	_, err := refOf(path).Open(context.Background(), Options{})
	if !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("err = %v, want ErrNoDatabase", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open without Create made %s", path)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	d, path := openTemp(t)
	if _, err := d.db.ExecContext(ctx, "PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	d.Close()
	_, err := refOf(path).Open(ctx, Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99, newer than this sectax knows") {
		t.Fatalf("err = %v", err)
	}
}

func TestCorruptFileUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sectax.db")
	junk := []byte("this is my thesis, not a database\n")
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := refOf(path).Open(context.Background(), Options{Create: true})
	if err == nil || !strings.Contains(err.Error(), "is not an SQLite database") || !strings.Contains(err.Error(), "left untouched") {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, junk) {
		t.Fatal("corrupt file was modified")
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a WAL file was created beside a foreign file")
	}
}

func TestTruncatedDatabaseUntouched(t *testing.T) {
	d, path := openTemp(t)
	if err := d.Begin(testRun("r1", "on")); err != nil {
		t.Fatal(err)
	}
	d.Close()
	// Keep the SQLite header but destroy the pages behind it.
	b, _ := os.ReadFile(path)
	for i := 100; i < len(b); i++ {
		b[i] = 0xA5
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	_, err := refOf(path).Open(context.Background(), Options{Create: true})
	if err == nil || !strings.Contains(err.Error(), "left untouched") {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, b) {
		t.Fatal("corrupt database was modified")
	}
}

func TestForeignSQLiteRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	o, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Exec("CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	o.Close()
	before, _ := os.ReadFile(path)
	_, err = refOf(path).Open(context.Background(), Options{Create: true})
	if err == nil || !strings.Contains(err.Error(), "database of another program") {
		t.Fatalf("err = %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("foreign database was modified")
	}
}

// testSinkInterruptedKeepsSamples drives the store as the runner does: a
// run begun with no samples, repetitions appended one by one, then either
// an interruption or a crash (no Finish at all).
func testSinkInterruptedKeepsSamples(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	r := testRun("r-int", "on")
	r.Status, r.Finished, r.Notes = run.StatusRunning, time.Time{}, nil
	for i := range r.Results {
		r.Results[i].Warnings, r.Results[i].Failures, r.Results[i].Footprint = nil, nil, nil
		for j := range r.Results[i].Metrics {
			r.Results[i].Metrics[j].Samples = []float64{}
		}
	}
	if err := d.Begin(r); err != nil {
		t.Fatal(err)
	}
	got, err := d.Get(ctx, "r-int")
	if err != nil || got.Status != run.StatusRunning || len(got.Results[0].Metrics[0].Samples) != 0 {
		t.Fatalf("after Begin: %+v, %v", got, err)
	}
	reps := []map[string]float64{
		{"usecs_per_op": 0.2, "ops_per_sec": 5e6},
		{"usecs_per_op": 0.25, "ops_per_sec": 4e6},
	}
	for _, v := range reps {
		r.Results[0].Metrics[0].Samples = append(r.Results[0].Metrics[0].Samples, v["usecs_per_op"])
		r.Results[0].Metrics[1].Samples = append(r.Results[0].Metrics[1].Samples, v["ops_per_sec"])
		if err := d.Sample(r, 0, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Sample(r, 1, map[string]float64{"usecs_per_op": 8.5}); err != nil {
		t.Fatal(err)
	}
	r.Results[1].Metrics[0].Samples = append(r.Results[1].Metrics[0].Samples, 8.5)

	// A crash now: the samples are there, the run is still "running".
	crashed, err := d.Get(ctx, "r-int")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(exportJSON(t, r)), string(exportJSON(t, crashed))); diff != "" {
		t.Fatalf("samples after crash (-want +got):\n%s", diff)
	}

	r.Status = run.StatusInterrupted
	r.Finished = r.Started.Add(3 * time.Second)
	r.Results[0].Warnings = []string{"interrupted after 2 of 3 repetitions"}
	r.Results[1].Failures = []string{"repetition 2: interrupted"}
	r.Results[0].Footprint = &run.Footprint{Processes: 1, Threads: 1, RSSKiB: 2048, PSSKiB: 256}
	r.Notes = []string{"interrupted by SIGINT"}
	if err := d.Finish(r); err != nil {
		t.Fatal(err)
	}
	got, err = d.Get(ctx, "r-int")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(exportJSON(t, r)), string(exportJSON(t, got))); diff != "" {
		t.Fatalf("interrupted run (-want +got):\n%s", diff)
	}

	if err := d.Sample(r, 0, map[string]float64{"nope": 1}); err == nil || !strings.Contains(err.Error(), `declares no metric "nope"`) {
		t.Fatalf("unknown metric: %v", err)
	}
	if err := d.Sample(r, 7, nil); err == nil {
		t.Fatal("result out of range accepted")
	}
	if err := d.Finish(testRun("never-begun", "")); err == nil || !strings.Contains(err.Error(), "never begun") {
		t.Fatalf("Finish of unknown run: %v", err)
	}
}

func testExportImportRoundTrip(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d1, _ := openTemp(t)
	orig := []*run.Run{testRun("r1", "on"), testRun("r2", "off")}
	orig[1].Env = nil
	for _, r := range orig {
		if err := d1.Begin(r); err != nil {
			t.Fatal(err)
		}
	}
	var fromDB []*run.Run
	for _, id := range []string{"r1", "r2"} {
		r, err := d1.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		fromDB = append(fromDB, r)
	}
	want := exportJSON(t, orig...)
	exported := exportJSON(t, fromDB...)
	if diff := cmp.Diff(string(want), string(exported)); diff != "" {
		t.Fatalf("stored run differs from the original (-want +got):\n%s", diff)
	}
	decoded, err := run.Decode("runs.json", exported)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := openTemp(t)
	res, err := d2.Import(ctx, decoded)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ImportResult{Imported: []string{"r1", "r2"}}, res); diff != "" {
		t.Fatal(diff)
	}
	var again []*run.Run
	for _, id := range []string{"r1", "r2"} {
		r, err := d2.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		again = append(again, r)
	}
	if diff := cmp.Diff(string(exported), string(exportJSON(t, again...))); diff != "" {
		t.Fatalf("round trip changed the runs (-want +got):\n%s", diff)
	}
	// Importing again skips both, writes nothing.
	res, err = d2.Import(ctx, decoded)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ImportResult{Skipped: []string{"r1", "r2"}}, res); diff != "" {
		t.Fatal(diff)
	}
}

func testResolve(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	for _, r := range []*run.Run{testRun("abc123", "on"), testRun("abd456", "on"), testRun("xyz789", "off")} {
		if err := d.Begin(r); err != nil {
			t.Fatal(err)
		}
	}
	check := func(ref string, want []string, how Match) {
		t.Helper()
		got, h, err := d.Resolve(ctx, ref)
		if err != nil || h != how || !cmp.Equal(got, want) {
			t.Errorf("Resolve(%q) = %v, %v, %v; want %v, %v", ref, got, h, err, want, how)
		}
	}
	check("abc123", []string{"abc123"}, ByID)
	check("on", []string{"abc123", "abd456"}, ByLabel)
	check("xy", []string{"xyz789"}, ByPrefix)
	_, _, err := d.Resolve(ctx, "ab")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !cmp.Equal(amb.Candidates, []string{"abc123", "abd456"}) {
		t.Errorf("ambiguous prefix: %v", err)
	}
	_, _, err = d.Resolve(ctx, "nope")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !cmp.Equal(nf.Candidates, []string{"label on", "label off", "abc123", "abd456", "xyz789"}) {
		t.Errorf("not found: %#v", err)
	}
	if _, err := d.ResolveOne(ctx, "on"); !errors.As(err, &amb) || !strings.Contains(err.Error(), "label of 2 runs") {
		t.Errorf("ResolveOne(label of two) = %v", err)
	}
	if id, err := d.ResolveOne(ctx, "off"); err != nil || id != "xyz789" {
		t.Errorf("ResolveOne(off) = %q, %v", id, err)
	}
}

func testDelete(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	if err := d.Begin(testRun("r1", "on")); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := d.db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM samples) + (SELECT count(*) FROM metrics) + (SELECT count(*) FROM results)").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows left after delete: %d, %v", n, err)
	}
	var nf *NotFoundError
	if err := d.Delete(ctx, "r1"); !errors.As(err, &nf) {
		t.Fatalf("second delete: %v", err)
	}
}

func testImportIsAllOrNothing(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	a := testRun("a", "")
	bad := testRun("b", "")
	// Duplicate metric index cannot happen through run.Decode, but a failure
	// inside the transaction must still leave nothing behind.
	bad.Results[0].Metrics[1].Name = bad.Results[0].Metrics[0].Name
	if _, err := d.Import(ctx, []run.Doc{{Run: a}, {Run: bad}}); err == nil {
		t.Fatal("import of a broken run succeeded")
	}
	if l, _ := d.List(ctx); len(l) != 0 {
		t.Fatalf("half an import was written: %v", l)
	}
}

func TestRunLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sectax.db")
	if got := refOf(path).MeasuringPID(); got != 0 {
		t.Fatalf("MeasuringPID without a lock file = %d", got)
	}
	release, err := refOf(path).Lock()
	if err != nil {
		t.Fatal(err)
	}
	_, err = refOf(path).Lock()
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second lock: %v", err)
	}
	if want := "another sectax run (pid " + strconv.Itoa(os.Getpid()) + ") is measuring"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
	if got := refOf(path).MeasuringPID(); got != os.Getpid() {
		t.Fatalf("MeasuringPID while held = %d", got)
	}
	release()
	if got := refOf(path).MeasuringPID(); got != 0 {
		t.Fatalf("MeasuringPID after release = %d", got)
	}
	release2, err := refOf(path).Lock()
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release2()
}

// testUnknownEnvFieldsSurvive: an env written by a newer sectax keeps the
// fields this build's Go type lacks through import, Env and export.
func testUnknownEnvFieldsSurvive(t *testing.T, openTemp opener) {
	ctx := context.Background()
	doc := strings.Replace(string(exportJSON(t, testRun("new", "off"))), `"env": {`,
		`"env": {"from_the_future": {"answer": 42, "list": [1, "two"]},`, 1)
	docs, err := run.Decode("new.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := openTemp(t)
	if _, err := d.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	env, err := d.Env(ctx, "new")
	if err != nil || env["from_the_future"].(map[string]any)["answer"] != float64(42) {
		t.Fatalf("Env = %v, %v", env, err)
	}
	got, err := d.Doc(ctx, "new")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := run.WriteDocs(&b, []run.Doc{got}, run.FormatArray); err != nil {
		t.Fatal(err)
	}
	var wantC, gotC bytes.Buffer
	json.Compact(&wantC, []byte(doc))
	json.Compact(&gotC, b.Bytes())
	if diff := cmp.Diff(wantC.String(), gotC.String()); diff != "" {
		t.Fatalf("export after import (-want +got):\n%s", diff)
	}
}

// TestBusyDatabase: while another connection holds the write lock, a
// writer waits for the busy timeout and then gets a clear error.
func TestBusyDatabase(t *testing.T) {
	ctx := context.Background()
	d1, path := openTemp(t)
	conn, err := d1.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	d2, err := refOf(path).Open(ctx, Options{BusyTimeout: 50 * time.Millisecond, Backoff: []time.Duration{}})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	err = d2.Begin(testRun("r1", "on"))
	if err == nil || !strings.Contains(err.Error(), "is locked by another process (waited 50ms); try again when it is done") {
		t.Fatalf("err = %v", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := d2.Begin(testRun("r1", "on")); err != nil {
		t.Fatalf("after the lock is gone: %v", err)
	}
}
