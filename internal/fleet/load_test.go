package fleet

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sectax/sectax/internal/fleet/fleettest"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
)

// TestLoad: from a real store holding the synthetic fleet, the runs of the
// two labels asked for, each with its environment, and only those.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, filepath.Join(t.TempDir(), "sectax.db"), store.Options{Create: true})
	docs := fleettest.Fleet(1)
	if _, err := db.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, d := range docs {
		count[d.Run.Label]++
	}
	for _, c := range []struct {
		on, off string
		want    int
	}{{"on", "off", count["on"] + count["off"]}, {"on", "nope", count["on"]}, {"nope", "nada", 0}} {
		runs, bad, err := Load(ctx, db, c.on, c.off)
		if err != nil || len(bad) != 0 || len(runs) != c.want {
			t.Errorf("Load(%s, %s): %d runs, bad %v, err %v; want %d runs", c.on, c.off, len(runs), bad, err, c.want)
		}
		for _, r := range runs {
			if (r.Run.Label != c.on && r.Run.Label != c.off) || r.Env["hostname"] == nil {
				t.Errorf("Load(%s, %s): run %s labelled %q, env %v", c.on, c.off, r.Run.ID, r.Run.Label, r.Env)
			}
		}
	}
	if count["on"] == 0 || count["off"] == 0 {
		t.Fatalf("the synthetic fleet has labels %v", count)
	}
}
