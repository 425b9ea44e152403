package store

import (
	"github.com/sectax/sectax/internal/run"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestReadOnlyNeverCreates: a command that only reads (Options without
// Create) makes nothing: not a missing file nor its folder, no schema in
// an empty file (nor a journal beside it), no tables in an empty
// PostgreSQL database. Each is ErrNoDatabase.
func TestReadOnlyNeverCreates(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "sub", "none.db")
	if _, err := refOf(missing).Open(ctx, Options{}); !IsNoDatabase(err) {
		t.Errorf("missing file: %v, want ErrNoDatabase", err)
	}
	if _, err := os.Lstat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("a read made the folder %s", filepath.Dir(missing))
	}
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := refOf(empty).Open(ctx, Options{}); !IsNoDatabase(err) {
		t.Errorf("empty file: %v, want ErrNoDatabase", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a read wrote beside the empty file: %v", ents)
	}
	if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
		t.Errorf("a read wrote into the empty file: %v %v", st, err)
	}

	u := pg.Get(t).NewDatabase(t)
	if _, err := refOf(u).Open(ctx, Options{}); !IsNoDatabase(err) {
		t.Errorf("empty PostgreSQL database: %v, want ErrNoDatabase", err)
	}
	d, err := refOf(u).Open(ctx, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n int
	if err := d.db.QueryRowContext(ctx, "SELECT version FROM "+pgSchemaTable).Scan(&n); err != nil || n != SchemaVersion() {
		t.Errorf("the first write did not make the schema: %d %v", n, err)
	}
	if _, err := refOf(u).Open(ctx, Options{}); err != nil {
		t.Errorf("a read of a made store: %v", err)
	}
}

// TestParallelImportsIntoNewFile: four importers opening a file that does
// not exist yet at once used to race on the schema ("table runs already
// exists"); the schema is made once, under one write transaction, and
// every import lands.
func TestParallelImportsIntoNewFile(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 3; round++ {
		path := filepath.Join(t.TempDir(), "new", "sectax.db")
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := refOf(path).Open(ctx, Options{Create: true})
				if err != nil {
					errs <- err
					return
				}
				defer d.Close()
				docs, err := run.Decode("f.json", exportJSON(t, testRun(fmt.Sprintf("r%d", i), "on")))
				if err == nil {
					_, err = d.Import(ctx, docs)
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		d, err := refOf(path).Open(ctx, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if l, _ := d.List(ctx); len(l) != 4 {
			t.Errorf("round %d: %d runs stored, want 4", round, len(l))
		}
		d.Close()
	}
}
