package store

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

// hostileDoc is the document of a good run, edited.
func hostileDoc(t *testing.T, edit func(doc map[string]any)) []byte {
	t.Helper()
	var docs []map[string]any
	if err := json.Unmarshal(exportJSON(t, testRun("20261130T090000-abcdef", "new")), &docs); err != nil {
		t.Fatal(err)
	}
	edit(docs[0])
	out, err := json.Marshal(docs[0])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImportHostile: the documents import once took, each refused with
// one line naming the field (a usage error from the file, a *run.FieldError
// from the store), and the store unchanged: in particular "id":"on"
// beside runs labelled on no longer turns 'compare on off' into a one-run
// side.
func TestImportHostile(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	for _, r := range []*run.Run{testRun("20261130T080000-on1", "on"), testRun("20261130T080000-on2", "on"), testRun("20261130T080000-off1", "off")} {
		if err := d.Begin(r); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	sample := func(d map[string]any) []any {
		return d["results"].([]any)[0].(map[string]any)["metrics"].([]any)[0].(map[string]any)["samples"].([]any)
	}
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"id is a label", func(d map[string]any) { d["id"] = "on" }, `id: "on" is already the label of 2 stored run(s)`},
		{"label is an id", func(d map[string]any) { d["label"] = "20261130T080000-off1" }, `label: "20261130T080000-off1" is the id of a stored run`},
		{"newline id", func(d map[string]any) { d["id"] = "x\ny" }, `id: "x\ny" holds the control character U+000A`},
		{"escape label", func(d map[string]any) { d["label"] = "\x1b]0;pwned\a" }, `label: "\x1b]0;pwned\a" holds the control character U+001B`},
		{"baseline id", func(d map[string]any) { d["id"] = "baseline:study-wsl3-on" }, `id: "baseline:study-wsl3-on" starts with "baseline:"`},
		{"baseline label", func(d map[string]any) { d["label"] = "baseline:mine" }, `starts with "baseline:"`},
		{"zero sample", func(d map[string]any) { sample(d)[0] = 0 }, "results[0].metrics[0].samples[0]: 0 in the primary metric"},
		{"negative sample", func(d map[string]any) { sample(d)[1] = -3 }, "results[0].metrics[0].samples[1]: -3 is negative"},
		{"runs -5", func(d map[string]any) { d["runs"] = -5 }, "runs: -5: must be at least 1"},
		{"finished first", func(d map[string]any) { d["finished"] = "2026-11-30T05:00:00Z" }, "finished: 2026-11-30T05:00:00Z is before started"},
		{"unknown schema", func(d map[string]any) { d["schema"] = "sectax.run/v2" }, `schema: "sectax.run/v2" is not "sectax.run/v1"`},
		{"missing results", func(d map[string]any) { delete(d, "results") }, "results: missing (a required field of sectax.run/v1)"},
		{"long label", func(d map[string]any) { d["label"] = strings.Repeat("L", 1<<20) }, "label: 1048576 bytes long, more than the limit of 128"},
		{"too many samples", func(d map[string]any) {
			s := make([]any, run.MaxSamples+1)
			for i := range s {
				s[i] = 1.0
			}
			d["results"].([]any)[0].(map[string]any)["metrics"].([]any)[0].(map[string]any)["samples"] = s
		}, "samples: 1000001 samples, more than the limit of 1000000"},
	} {
		file := filepath.Join(dir, "hostile.json")
		if err := os.WriteFile(file, hostileDoc(t, c.edit), 0o644); err != nil {
			t.Fatal(err)
		}
		docs, err := ReadFiles(ctx, []string{file})
		if err == nil {
			_, err = d.Import(ctx, docs)
			if !errors.As(err, new(*run.FieldError)) {
				t.Errorf("%s: Import = %v, want a *FieldError", c.name, err)
			}
		} else if exit.Of(err) != exit.Usage {
			t.Errorf("%s: ReadFiles = %v, want a usage error", c.name, err)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || len(err.Error()) > 600 {
			t.Errorf("%s: %.300q; want one line with %q", c.name, err, c.want)
		}
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(strings.Repeat(" ", 64<<20+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFiles(ctx, []string{big}); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "more than the limit of 64 MiB for an import file") {
		t.Errorf("oversized file: %v", err)
	}
	if ids, how, err := d.Resolve(ctx, "on"); err != nil || how != ByLabel || len(ids) != 2 {
		t.Errorf("'on' changed after refused imports: %v %v %v", ids, how, err)
	}
	if l, err := d.List(ctx); err != nil || len(l) != 3 {
		t.Errorf("the store holds %d runs after refused imports (%v), want 3", len(l), err)
	}
}

// TestReadFilesNotRegular: reading a FIFO used to block for ever, deaf to
// Ctrl-C; a FIFO, a device and a folder are refused at once in one line
// naming what they are, and a cancelled read (Ctrl-C) stops.
func TestReadFilesNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{fifo, "it is a FIFO"},
		{"/dev/null", "it is a character device"},
		{dir, "it is a directory"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFiles(context.Background(), []string{c.file})
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			t.Fatalf("reading %s blocks", c.file)
		}
		if exit.Of(err) != exit.Usage || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want one usage line with %q", c.file, err, c.want)
		}
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, exportJSON(t, testRun("20261130T090000-abcdef", "on")), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadFiles(ctx, []string{good}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read: %v", err)
	}
}

// TestParseRefRefused: a --db or SECTAX_DB that is neither a file path nor
// a postgres:// URL (libpq key=value text, another scheme, "postgres:"
// without "//") used to become an SQLite path: folders and a file named
// after the password were made and the path printed. ParseRef refuses it
// in one usage line that does not echo it, and DisplayName (--help's
// default) does not show it.
func TestParseRefRefused(t *testing.T) {
	const pw = "Pw0rdX"
	for _, s := range []string{
		"host=db user=sectax password=" + pw + " dbname=sectax",
		"password=" + pw,
		"pg://u:" + pw + "@h/db",
		"postgres:x:" + pw + "@h/db",
		"mysql://u:" + pw + "@h/db",
		"sqlite://" + pw,
		"file:" + pw + ".db",
	} {
		r, err := ParseRef(s)
		if exit.Of(err) != exit.Usage || !r.IsZero() || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "neither a file path nor a postgres:// URL") {
			t.Errorf("%q: %v, %v; want one usage line", s, r, err)
		}
		if strings.Contains(err.Error(), pw) || strings.Contains(DisplayName(s), pw) {
			t.Errorf("%q: the password is shown: %q, %q", s, err, DisplayName(s))
		}
	}
	if r, err := ParseRef("./postgres:x"); err != nil || r.IsURL() || filepath.Base(r.Path()) != "postgres:x" {
		t.Errorf("./NAME is a file: %v %v", r, err)
	}
}
