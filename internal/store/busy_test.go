package store

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/ui"
)

// unsavedRE finds the file a run the store could not take was spilled to.
var unsavedRE = regexp.MustCompile(`it is saved in (\S+sectax-unsaved-\S+\.json): recover it with 'sectax import `)

// measureInto records a run of reps repetitions of its first result
// through rec as a measurement does (Begin, a Sample per repetition, its
// value appended to the run first, Finish), calling at(k) before the k-th
// repetition. It returns the run, complete.
func measureInto(t testing.TB, rec *Recorder, id string, reps int, at func(k int)) *run.Run {
	if t != nil {
		t.Helper()
	}
	r := testRun(id, "busy")
	r.Results = r.Results[:1]
	for j := range r.Results[0].Metrics {
		r.Results[0].Metrics[j].Samples = nil
	}
	r.Status = run.StatusRunning
	rec.Begin(r)
	for k := range reps {
		if at != nil {
			at(k)
		}
		vals := map[string]float64{}
		for j := range r.Results[0].Metrics {
			m := &r.Results[0].Metrics[j]
			v := 1.5 + float64(k)/100
			m.Samples = append(m.Samples, v)
			vals[m.Name] = v
		}
		rec.Sample(r, 0, vals)
	}
	r.Status = run.StatusComplete
	rec.Finish(r)
	return r
}

// checkSpillImports imports the spill file into the store at path and
// checks that the store then holds exactly the run of the file, finished,
// in place of the copy cut short (or as a new run, when the store could
// not even begin it).
func checkSpillImports(t *testing.T, path, file string, want *run.Run) {
	t.Helper()
	docs, err := ReadFiles(context.Background(), []string{file})
	if err != nil || len(docs) != 1 {
		t.Fatalf("the spill file does not read: %v", err)
	}
	d, err := refOf(path).Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	res, err := d.Import(context.Background(), docs)
	if err != nil || !slices.Equal(append(res.Replaced, res.Imported...), []string{want.ID}) {
		t.Fatalf("import of the spill file: %+v, %v; want the run stored", res, err)
	}
	got, err := d.Get(context.Background(), want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != run.StatusComplete || !slices.Equal(got.Results[0].Metrics[0].Samples, want.Results[0].Metrics[0].Samples) {
		t.Errorf("stored after import: status %s, samples %v; want complete, %v", got.Status, got.Results[0].Metrics[0].Samples, want.Results[0].Metrics[0].Samples)
	}
}

// TestRecorderSpillsWhenBusy: another writer takes the database's lock in
// the middle of a run and holds it longer than the backoff. The recording
// used to abort the run; now the recorder says it waits, then that it
// measures on, and Saved writes the run beside the store and names the
// file, which imports back in place of the copy cut short.
func TestRecorderSpillsWhenBusy(t *testing.T) {
	d0, path := openTemp(t)
	d0.Close()
	out := &ui.Recorder{}
	d, err := refOf(path).Open(context.Background(), Options{BusyTimeout: 20 * time.Millisecond,
		Backoff: []time.Duration{30 * time.Millisecond, 60 * time.Millisecond}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rec := NewRecorder(context.Background(), d, out)
	var release func()
	r := measureInto(t, rec, "20261130T090000-abcdef", 6, func(k int) {
		if k == 2 {
			release = holdExclusive(t, path)
		}
	})
	saved := rec.Saved(r)
	release()
	if saved == nil || rec.Err() == nil {
		t.Fatal("a run the store could not take was said to be stored")
	}
	notes := strings.Join(out.Notes(), "\n")
	for _, want := range []string{
		"database " + path + " is locked by another process; trying again in 30ms (attempt 2 of 3)",
		"is locked by another process (waited 150ms)",
		"measuring on, the run will be written to a file at the end",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if !strings.Contains(saved.Error(), "run "+r.ID+" was not stored in "+path) {
		t.Errorf("Saved = %v", saved)
	}
	m := unsavedRE.FindStringSubmatch(saved.Error())
	if m == nil || filepath.Dir(m[1]) != filepath.Dir(path) {
		t.Fatalf("no spill file beside the store named in: %v", saved)
	}
	checkSpillImports(t, path, m[1], r)
}

// TestRecorderWaitsOutBusy: a lock released within the backoff costs a
// wait (said) and nothing else. The lock goes once the store has said it
// waits: its next attempt, whenever it comes, finds the database free.
func TestRecorderWaitsOutBusy(t *testing.T) {
	d0, path := openTemp(t)
	d0.Close()
	out := &ui.Recorder{}
	var release func()
	said := notesDo(func(msg string) {
		out.Notef("%s", msg)
		if busyNote.MatchString(msg) && release != nil {
			release()
		}
	})
	d, err := refOf(path).Open(context.Background(), Options{BusyTimeout: 20 * time.Millisecond,
		Backoff: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, Out: said})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rec := NewRecorder(context.Background(), d, said)
	release = holdExclusive(t, path)
	r := measureInto(t, rec, "20261130T090000-abcdef", 2, nil)
	if err := rec.Saved(r); err != nil {
		t.Fatalf("Saved: %v\n%q", err, out.Notes())
	}
	notes := strings.Join(out.Notes(), "\n")
	if !strings.Contains(notes, "is locked by another process; trying again in 100ms (attempt 2 of 4)") ||
		!strings.Contains(notes, "stored run "+r.ID+" in "+path) {
		t.Fatalf("notes:\n%s", notes)
	}
}

// TestRecorderInterruptedWhileBusy: Ctrl-C while the store is locked by
// another writer ends the wait for it: with a backoff of minutes, the
// recording still ends within seconds and the run is spilled to a file
// that imports back, instead of sleeping through the backoff.
func TestRecorderInterruptedWhileBusy(t *testing.T) {
	d0, path := openTemp(t)
	d0.Close()
	ctx, cancel := context.WithCancel(context.Background()) // what Ctrl-C cancels
	defer cancel()
	// Ctrl-C once a write has found the store busy and waits.
	said := notesDo(func(msg string) {
		if busyNote.MatchString(msg) {
			cancel()
		}
	})
	d, err := refOf(path).Open(context.Background(), Options{BusyTimeout: 20 * time.Millisecond,
		Backoff: []time.Duration{time.Minute, time.Minute, time.Minute}, Out: said})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rec := NewRecorder(ctx, d, said)
	var release func()
	start := time.Now()
	r := measureInto(t, rec, "20261130T090000-abcdef", 6, func(k int) {
		if k == 2 {
			release = holdExclusive(t, path)
		}
	})
	saved := rec.Saved(r)
	took := time.Since(start)
	release()
	// Sleeping through the backoff would take a minute and more: well
	// under that is the wait ended, however busy the machine.
	if took > 45*time.Second {
		t.Fatalf("took %v, want well within the minute of backoff", took)
	}
	m := unsavedRE.FindStringSubmatch(saved.Error())
	if m == nil {
		t.Fatalf("no spill file named in: %v", saved)
	}
	checkSpillImports(t, path, m[1], r)
}

// TestSpoolNeedsAHome: with HOME and XDG_DATA_HOME unset, the spool of a
// PostgreSQL store used to be ./spool.db in the working folder; recording
// into it and pushing it now refuse in one line naming them, and make
// nothing.
func TestSpoolNeedsAHome(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	ref := refOf("postgres://sectax@/x?host=" + filepath.Join(dir, "nothing"))
	_, _, err := ref.OpenRecorder(context.Background(), "on", Options{})
	if exit.Of(err) != exit.Usage || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "XDG_DATA_HOME and HOME are both unset") {
		t.Errorf("record: %v", err)
	}
	if _, err := ref.PushSpool(context.Background(), Options{}); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "XDG_DATA_HOME and HOME are both unset") {
		t.Errorf("push: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the spool landed in the working folder: %v", ents)
	}
}
