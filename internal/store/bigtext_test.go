package store

import (
	"github.com/sectax/sectax/internal/run"

	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/ui"
)

// testHugeTextsNotRead: a stored label and environment far over their
// bounds are measured in the query (octet_length) and never read: the
// label reads as the marker that says its size, the environment as none,
// each said in one note naming the run however often the run is read, and
// export refuses the run rather than write the marker as its label.
func testHugeTextsNotRead(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	rec := &ui.Recorder{}
	d.notes = &notes{out: rec}
	r := testRun("r1", "on")
	if err := d.Begin(r); err != nil {
		t.Fatal(err)
	}
	// PostgreSQL indexes the label (an index row holds at most 8 KiB).
	labelBytes, envBytes := 20<<20, 30<<20
	if d.dialect == postgresDialect {
		labelBytes = 6000
	}
	marker := fmt.Sprintf("…[cut by sectax: %d bytes stored]", labelBytes)
	env := `{"hostname":"` + strings.Repeat("h", envBytes-15) + `"}`
	if _, err := d.db.ExecContext(ctx, `UPDATE runs SET label = ?, env = ?`, strings.Repeat("l", labelBytes), env); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		l, err := d.List(ctx)
		if err != nil || len(l) != 1 {
			t.Fatalf("List: %v %v", l, err)
		}
		if l[0].Label != marker || l[0].Env != nil {
			t.Fatalf("List read label %.80q, env %v", l[0].Label, l[0].Env != nil)
		}
		got, err := d.Get(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Label != l[0].Label || got.Env != nil {
			t.Fatalf("Get read label %.80q, env %v", got.Label, got.Env != nil)
		}
		err = CheckExport(run.Doc{Run: got})
		if err == nil || !strings.Contains(err.Error(), "too big to read") || exit.Of(err) != exit.Usage {
			t.Fatalf("export of the run: %v", err)
		}
	}
	said := rec.Notes()
	if len(said) != 2 || !strings.Contains(said[0], "run r1: its stored label is too big to read ("+marker[len("…"):]+")") ||
		!strings.Contains(said[1], "run r1: its stored environment of 31457280 bytes") {
		t.Fatalf("notes: %q", said)
	}
}
