package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCompletionsNoOptionWords: a stored label or id that reads as an
// option (--output=PATH, -oPATH, --db=…) is never offered, whoever wrote
// it; an ordinary one beside it is.
func TestCompletionsNoOptionWords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	d, err := refOf(path).Open(ctx, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, label := range []string{"--output=/etc/passwd", "-o/root/x", "--db=postgres://x", "-", "on"} {
		if _, err := d.db.ExecContext(ctx, `INSERT INTO runs(id, label, started, status) VALUES (?, ?, '2026-01-02T03:04:05Z', 'complete')`,
			"20260102T030405Z-abcd"+strconv.Itoa(i), label); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.db.ExecContext(ctx, `INSERT INTO runs(id, label, started, status) VALUES ('--output=x', 'on', '2026-01-02T03:04:05Z', 'complete')`); err != nil {
		t.Fatal(err)
	}
	d.Close()
	got := refOf(path).Completions(ctx, "")
	if len(got) == 0 {
		t.Fatal("nothing offered")
	}
	for _, w := range got {
		if strings.HasPrefix(w, "-") {
			t.Errorf("offered %q", w)
		}
	}
	if !strings.HasPrefix(got[0], "on\t") {
		t.Errorf("the ordinary label is not offered first: %q", got)
	}
	if got := refOf(path).Completions(ctx, "-"); len(got) != 0 {
		t.Errorf("offered for '-': %q", got)
	}
}

// TestCompletionsReadOnly: completion opens the store read-only: a store
// of an older schema is not migrated (its bytes and version unchanged, no
// file made beside it) and nothing is offered from it.
func TestCompletionsReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "v1.db")
	v1Store(t, path, `INSERT INTO runs(id, label, started, status) VALUES ('20260102T030405Z-abcd', 'on', '2026-01-02T03:04:05Z', 'complete')`)
	before, _ := os.ReadFile(path)
	if got := refOf(path).Completions(ctx, ""); got != nil {
		t.Errorf("offered from an older schema: %q", got)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("completion changed the store")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("files beside the store: %v", ents)
	}
	if _, err := refOf(path).Open(ctx, Options{ReadOnly: true}); !errors.Is(err, ErrOldSchema) {
		t.Fatalf("read-only open of an older schema: %v", err)
	}
}
