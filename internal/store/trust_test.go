package store

import (
	"context"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/exit"
	"golang.org/x/sys/unix"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/run"
)

// TestDecodeRequiredFieldsAndLimits: a document missing a required field,
// or a file over the size limit, is refused in one line naming it.
func TestDecodeRequiredFieldsAndLimits(t *testing.T) {
	good := string(exportJSON(t, testRun("a", "")))
	for _, c := range []struct{ name, doc, want string }{
		{"no schema", strings.Replace(good, `"schema": "sectax.run/v1",`, ``, 1), "schema: missing: this is not a sectax run document"},
		{"no runs", strings.Replace(good, `"runs": 3,`, ``, 1), "runs: missing (a required field of sectax.run/v1)"},
		{"no label", strings.Replace(good, `"label": "",`, ``, 1), "label: missing"},
		{"no samples", strings.Replace(good, `"samples": [`, `"x": [`, 1), "results[0].metrics[0].samples: missing"},
		{"no params", strings.Replace(good, `"params": {`, `"x": {`, 1), "results[0].params: missing"},
		{"not an object", `[1]`, "(document): must be a JSON object"},
		{"negative runs", strings.Replace(good, `"runs": 3`, `"runs": -5`, 1), "runs: -5: must be at least 1"},
		{"zero sample", strings.Replace(good, `0.2,`, `0,`, 1), "results[0].metrics[0].samples[0]: 0 in the primary metric"},
		{"escape id", strings.Replace(good, `"id": "a"`, `"id": "a\u001b[2J"`, 1), `document 1 (run "a\x1b[2J"): id: "a\x1b[2J" holds the control character U+001B`},
	} {
		_, err := run.Decode("f.json", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line with %q", c.name, err, c.want)
		}
	}
	big := make([]byte, run.MaxDocumentBytes+1)
	if _, err := run.Decode("big.json", big); err == nil || !strings.Contains(err.Error(), "more than the limit of 64 MiB") {
		t.Errorf("oversized file: %v", err)
	}
}

// TestImportIDLabelConflicts: the reproducer: with runs labelled
// "on" stored, a document with "id":"on" would make 'compare on off' a
// one-run side and 'rm on' delete it. Refused, as is a label that is a
// stored id, or an id that is another document's label.
func TestImportIDLabelConflicts(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	if err := d.Begin(testRun("r1", "on")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		runs []*run.Run
		want string
	}{
		{"id is a stored label", []*run.Run{testRun("on", "x")}, `id: "on" is already the label of 1 stored run(s)`},
		{"label is a stored id", []*run.Run{testRun("r2", "r1")}, `label: "r1" is the id of a stored run`},
		{"within the file", []*run.Run{testRun("r3", "r4"), testRun("r4", "")}, `label: "r4" is the id of document 2`},
	} {
		docs, err := run.Decode("f.json", exportJSON(t, c.runs...))
		if err == nil {
			_, err = d.Import(ctx, docs)
		}
		var fe *run.FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a run.FieldError with %q", c.name, err, c.want)
		}
	}
	if l, _ := d.List(ctx); len(l) != 1 {
		t.Errorf("a refused import wrote runs: %v", l)
	}
}

// TestUserVersionOutOfRange: a negative user_version panicked every
// command (slice bounds); now it and a newer one are one-line refusals.
func TestUserVersionOutOfRange(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		v    string
		want string
	}{
		{"-1", "is not a sectax database or is corrupt (schema version -1"},
		{"-2147483648", "is not a sectax database or is corrupt"},
		{"2147483647", "newer than this sectax knows"},
	} {
		d, path := openTemp(t)
		if _, err := d.db.ExecContext(ctx, "PRAGMA user_version = "+c.v); err != nil {
			t.Fatal(err)
		}
		d.Close()
		_, err := refOf(path).Open(ctx, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("user_version %s: err = %v", c.v, err)
		}
	}
}

// holdExclusive takes the write lock of the database at path on a second,
// real connection (BEGIN EXCLUSIVE) and holds it until release is called
// (at the latest when the test ends).
func holdExclusive(t *testing.T, path string) (release func()) {
	t.Helper()
	ctx := context.Background()
	other, err := refOf(path).Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn.ExecContext(ctx, "ROLLBACK")
			conn.Close()
			other.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// TestBusyRetriedWithBackoff: a lock released within the backoff is waited
// out (and reported while waiting); one held longer than all of it is a
// *BusyError with the time waited in all. The lock is released from the
// report of the first busy attempt, not after a time, so that a slow
// machine changes nothing.
func TestBusyRetriedWithBackoff(t *testing.T) {
	d0, path := openTemp(t)
	d0.Close()
	var told atomic.Int32
	var onBusy func()
	opt := Options{BusyTimeout: 50 * time.Millisecond, Backoff: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond},
		Out: notesDo(func(msg string) {
			told.Add(1)
			if !busyNote.MatchString(msg) || !strings.HasSuffix(msg, " of 4)") || !strings.Contains(msg, "database "+path+" is locked") {
				t.Errorf("busy note %q", msg)
			}
			if onBusy != nil {
				onBusy()
			}
		})}
	d, err := refOf(path).Open(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	onBusy = holdExclusive(t, path)
	if err := d.Begin(testRun("r1", "on")); err != nil {
		t.Fatalf("lock released within the backoff: %v", err)
	}
	if told.Load() != 1 {
		t.Errorf("the wait was reported %d times, want once (the lock went after the first report)", told.Load())
	}
	onBusy = nil
	release := holdExclusive(t, path)
	err = d.Begin(testRun("r2", "on"))
	release()
	var be *BusyError
	if !errors.As(err, &be) || be.Waited < 900*time.Millisecond || !strings.Contains(err.Error(), "is locked by another process (waited") {
		t.Fatalf("lock held past the backoff: err = %v", err)
	}
	if !IsWriteFailure(err) {
		t.Error("a BusyError is not a write failure")
	}
}

// TestImportReplacesCutShort: the file a run that could not be stored was
// spilled to replaces the cut-short copy the store holds (its samples
// extend the stored ones); a different run of the same id does not.
func TestImportReplacesCutShort(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	full := testRun("r1", "on")
	partial := testRun("r1", "on")
	partial.Status, partial.Finished = run.StatusRunning, time.Time{}
	for i := range partial.Results {
		for j := range partial.Results[i].Metrics {
			partial.Results[i].Metrics[j].Samples = partial.Results[i].Metrics[j].Samples[:1]
		}
	}
	if err := d.Begin(partial); err != nil {
		t.Fatal(err)
	}
	other := testRun("r1", "on")
	other.Results[0].Metrics[0].Samples[0] = 9
	docs, err := run.Decode("other.json", exportJSON(t, other))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := d.Import(ctx, docs); err != nil || len(res.Skipped) != 1 {
		t.Fatalf("a different run replaced the stored one: %+v %v", res, err)
	}
	docs, err = run.Decode("full.json", exportJSON(t, full))
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Import(ctx, docs)
	if err != nil || len(res.Replaced) != 1 {
		t.Fatalf("import = %+v, %v", res, err)
	}
	got, err := d.Get(ctx, "r1")
	if err != nil || got.Status != run.StatusComplete || len(got.Results[0].Metrics[0].Samples) != 3 {
		t.Fatalf("stored after replace: %+v %v", got, err)
	}
	if res, _ := d.Import(ctx, docs); len(res.Skipped) != 1 {
		t.Errorf("a finished run was replaced again: %+v", res)
	}
}

// TestPostgresSchemaVersionOutOfRange: a schema version edited out of
// range is one line naming the database, never a panic (the SQLite case
// was fixed before; the PostgreSQL one sliced the migrations with it).
func TestPostgresSchemaVersionOutOfRange(t *testing.T) {
	d, u := openPG(t)
	for _, v := range []int{-1, -1000, 1 << 30} {
		if _, err := d.db.Exec(fmt.Sprintf("UPDATE %s SET version = %d", pgSchemaTable, v)); err != nil {
			t.Fatal(err)
		}
		_, err := refOf(u).Open(context.Background(), Options{})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprint(v)) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("version %d: %v", v, err)
		}
	}
}

// TestPostgresSchemeAnyCase: POSTGRES:// (any case) is the same database
// as postgres://: the host and database are kept, not dropped.
func TestPostgresSchemeAnyCase(t *testing.T) {
	d, u := openPG(t)
	if _, err := d.db.Exec("CREATE TABLE marker (x INT)"); err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"POSTGRES", "PostgreSQL"} {
		upper := scheme + u[strings.Index(u, "://"):]
		d2, err := refOf(upper).Open(context.Background(), Options{})
		if err != nil {
			t.Fatalf("%s: %v", upper, err)
		}
		var n int
		err = d2.db.QueryRow("SELECT count(*) FROM marker").Scan(&n)
		d2.Close()
		if err != nil {
			t.Fatalf("%s reached another database: %v", upper, err)
		}
		if ref, err := ParseRef(upper); err != nil || !strings.HasPrefix(ref.Locate(), strings.ToLower(scheme)+"://") {
			t.Fatalf("ParseRef(%s).Locate() = %s, %v", upper, ref.Locate(), err)
		}
	}
	if ref, err := ParseRef("rel/sectax.db"); err != nil || !filepath.IsAbs(ref.Locate()) {
		t.Fatalf("Locate of a file: %s %v", ref.Locate(), err)
	}
}

// TestStorePathNotARegularFile: a device, a FIFO or a link to one as the
// store is a usage error, and nothing is created beside it.
func TestStorePathNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "null")
	os.Symlink("/dev/null", link)
	for _, p := range []string{"/dev/null", fifo, link} {
		_, err := refOf(p).Open(context.Background(), Options{Create: true})
		if err == nil || exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("%s: %v (kind %v)", p, err, exit.Of(err))
		}
		if _, err := os.Lstat(p + "-journal"); !os.IsNotExist(err) {
			t.Fatalf("%s-journal made: %v", p, err)
		}
	}
}

// TestImportRevalidates: a run read back from a store (a spool anyone
// who can write its folder could edit) is validated again before sectax
// push sends it (CheckDocs): an edited row is refused, nothing sent.
func TestImportRevalidates(t *testing.T) {
	spool, _ := openTemp(t)
	for _, id := range []string{"r1", "r2"} {
		r := testRun(id, "lbl")
		if err := spool.Begin(r); err != nil {
			t.Fatal(err)
		}
		if err := spool.Finish(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := spool.db.Exec(`UPDATE runs SET label = 'baseline:evil' || char(10) || 'x' WHERE id = 'r2'`); err != nil {
		t.Fatal(err)
	}
	var docs []run.Doc
	for _, id := range []string{"r1", "r2"} {
		d, err := spool.Doc(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	if err := CheckDocs(docs[:1]); err != nil {
		t.Fatal(err)
	}
	err := CheckDocs(docs)
	if err == nil || !strings.Contains(err.Error(), "r2") || exit.Of(err) != exit.Usage {
		t.Fatalf("check of an edited run: %v", err)
	}
}

// TestAmbiguousMessageBounded: a reference matching thousands of runs
// names at most a few of them and says how many more.
func TestAmbiguousMessageBounded(t *testing.T) {
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = fmt.Sprintf("20261130T060000-%06d", i)
	}
	for _, err := range []error{&AmbiguousError{Ref: "2026", Why: "an id prefix of 5000 runs", Candidates: ids}, &NotFoundError{Ref: "x", Candidates: ids}} {
		msg := err.Error()
		if len(msg) > 600 || !strings.Contains(msg, "and 4990 more") {
			t.Fatalf("%d bytes: %.200s", len(msg), msg)
		}
	}
}
