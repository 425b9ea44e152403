package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/store/tampertest"
	"github.com/sectax/sectax/internal/ui"
)

// TestHostileRows: every tamper of tampertest.Tampers (what anyone who can
// write a store may do to its rows) on both engines, then every read of
// the store: none panics, an error is one line, what a read cut or
// skipped is said in at most MaxListedNotes notes and one that counts the
// rest, no note is longer than 64 KiB, and a run's document is either
// checked fit for export or refused in one line. (internal/cli's
// TestHostileStore runs every command over them.)
func TestHostileRows(t *testing.T) {
	old := MaxReadRunSamples
	MaxReadRunSamples = 20_000 // the cut shown on 30,000 rows
	t.Cleanup(func() { MaxReadRunSamples = old })
	ids := []string{"20261130T060000-on1", "20261130T060000-on2", "20261130T080000-off1"}
	for _, tp := range tampertest.Tampers() {
		for _, b := range backends {
			t.Run(strings.ReplaceAll(tp.Name, " ", "-")+"/"+b.name, func(t *testing.T) {
				t.Parallel() // each store its own; MaxReadRunSamples is set before and restored after them all
				ctx := context.Background()
				d0, dsn := b.open(t)
				for i, id := range ids {
					if err := d0.Begin(testRun(id, []string{"on", "on", "off"}[i])); err != nil {
						t.Fatal(err)
					}
				}
				d0.Close()
				tampertest.Apply(t, tp, dsn)
				out := &ui.Recorder{}
				d, err := refOf(dsn).Open(ctx, Options{Out: out})
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				one := func(what string, err error) {
					if err != nil && strings.Contains(err.Error(), "\n") {
						t.Errorf("%s: an error of more than one line: %.300q", what, err)
					}
				}
				_, err = d.List(ctx)
				one("List", err)
				_, err = d.ListBrief(ctx)
				one("ListBrief", err)
				_, _, err = d.Resolve(ctx, "on")
				one("Resolve", err)
				_, err = d.GetMany(ctx, ids)
				one("GetMany", err)
				for _, id := range ids {
					_, err = d.Get(ctx, id)
					one("Get "+id, err)
					doc, err := d.Doc(ctx, id)
					one("Doc "+id, err)
					if err == nil {
						one("CheckExport "+id, CheckExport(doc))
					}
				}
				if !tp.Many {
					one("Delete", d.Delete(ctx, ids[0]))
				}
				notes := out.Notes()
				if cut := fmt.Sprintf("more than %d samples stored", MaxReadRunSamples); tp.Many && !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, cut) }) {
					t.Errorf("the run's samples past %d were read or not said: notes %.300q", MaxReadRunSamples, notes)
				}
				if len(notes) > MaxListedNotes+1 {
					t.Errorf("%d notes, more than %d and the one that counts the rest", len(notes), MaxListedNotes)
				}
				for _, n := range notes {
					if len(n) > 64<<10 || strings.Contains(n, "\n") {
						t.Errorf("a note of %d bytes: %.200q", len(n), n)
					}
				}
			})
		}
	}
}
