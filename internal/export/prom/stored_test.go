package prom

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
)

// TestStored: from a real store of two on runs and one off run, the
// newest host run and the tax; a side that is not stored leaves the tax
// out (skipped) unless it was asked for explicitly.
func TestStored(t *testing.T) {
	ctx := context.Background()
	docs, err := store.ReadFiles(ctx, []string{filepath.Join("..", "..", "cli", "testdata", "runs.json")})
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.Open(t, filepath.Join(t.TempDir(), "sectax.db"), store.Options{Create: true})
	if _, err := db.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}

	in := Input{OnRef: "on", OffRef: "off"}
	skipped, err := in.Stored(ctx, db, false)
	if err != nil || skipped != nil {
		t.Fatalf("Stored: skipped %v, err %v", skipped, err)
	}
	if in.Latest == nil || in.Latest.ID != "20261130T080000-off1" {
		t.Errorf("Latest = %v, want the off run", in.Latest)
	}
	if in.Tax == nil || len(in.Tax.Sides()) != 2 {
		t.Fatalf("Tax = %v, want on against off", in.Tax)
	}

	for _, c := range []struct{ on, off string }{{"on", "nope"}, {"on", "on"}} {
		in := Input{OnRef: c.on, OffRef: c.off}
		skipped, err := in.Stored(ctx, db, false)
		if err != nil || skipped == nil || in.Tax != nil || in.Latest == nil {
			t.Errorf("%s against %s: skipped %v, err %v, tax %v: want the tax left out and the run kept", c.on, c.off, skipped, err, in.Tax)
		}
		in = Input{OnRef: c.on, OffRef: c.off}
		if skipped, err := in.Stored(ctx, db, true); err == nil || skipped != nil {
			t.Errorf("%s against %s asked for: skipped %v, err %v, want the error", c.on, c.off, skipped, err)
		}
	}
}
