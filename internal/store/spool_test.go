package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/ui"
)

// TestSpoolRoundTrip: a run bound for PostgreSQL is recorded in the local
// spool as it goes and pushed when it ends (Saved); 'sectax push' then
// finds nothing, and a run left in the spool is pushed by PushSpool.
func TestSpoolRoundTrip(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	ctx := context.Background()
	if p, err := refOf("postgres://nowhere.invalid/x").PushSpool(ctx, Options{}); err != nil || p.Nothing != "nothing to push: no spool" {
		t.Fatalf("no spool: %+v, %v", p, err)
	}
	pg, u := openPG(t)
	out := &ui.Recorder{}
	rec, done, err := refOf(u).OpenRecorder(ctx, "on", Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	spool, _ := SpoolPath()
	if rec.DB.Path() != spool {
		t.Errorf("recorded in %s, want the spool %s", rec.DB.Path(), spool)
	}
	r := testRun("20261130T060000-spool1", "on")
	r.Status = run.StatusRunning
	for _, step := range []func(*run.Run) error{rec.Begin, rec.Finish, rec.Saved} {
		if err := step(r); err != nil {
			t.Fatal(err)
		}
	}
	done()
	if _, err := pg.Get(ctx, r.ID); err != nil {
		t.Errorf("the run did not reach PostgreSQL: %v", err)
	}
	if said := out.Notes(); !slices.ContainsFunc(said, func(s string) bool { return strings.HasPrefix(s, "stored run "+r.ID+" in postgres://") }) {
		t.Errorf("said %q", said)
	}
	if p, err := refOf(u).PushSpool(ctx, Options{Out: out}); err != nil || p.Nothing != "nothing to push: the spool is empty" {
		t.Errorf("after the push: %+v, %v", p, err)
	}

	// A run left in the spool (the server was away when it ended).
	sp, err := refOf(spool).Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	left := testRun("20261130T060000-spool2", "off")
	if err := sp.Begin(left); err != nil {
		t.Fatal(err)
	}
	sp.Close()
	if p, err := refOf(u).PushSpool(ctx, Options{Out: out}); err != nil || !slices.Equal(p.Moved, []string{left.ID}) || len(p.Held) != 0 {
		t.Errorf("push of the left run: %+v, %v", p, err)
	}

	// A label that is a stored run's id is refused before anything is spooled.
	if _, _, err := refOf(u).OpenRecorder(ctx, r.ID, Options{Out: out}); err == nil || !strings.Contains(err.Error(), "is the id of stored run") {
		t.Errorf("label naming a run: %v", err)
	}
}
