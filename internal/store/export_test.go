package store

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/run"
)

// TestExportIDs: the references of 'sectax export' become each run once,
// in the order named, and WriteDocs writes those runs as documents that
// import reads back.
func TestExportIDs(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	for _, r := range []*run.Run{testRun("abc123", "on"), testRun("abd456", "on"), testRun("xyz789", "off")} {
		if err := d.Begin(r); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := d.ExportIDs(ctx, []string{"xy", "on", "abc123", "xyz789"})
	if want := []string{"xyz789", "abc123", "abd456"}; err != nil || !cmp.Equal(ids, want) {
		t.Fatalf("ExportIDs = %v, %v; want %v", ids, err, want)
	}
	var nf *NotFoundError
	if got, err := d.ExportIDs(ctx, []string{"on", "nope"}); !errors.As(err, &nf) || got != nil {
		t.Errorf("ExportIDs with an unknown reference = %v, %v", got, err)
	}
	for _, f := range []run.DocFormat{run.FormatArray, run.FormatLines} {
		var b bytes.Buffer
		if err := d.WriteDocs(ctx, &b, f, ids); err != nil {
			t.Fatal(err)
		}
		docs, err := run.Decode("export", b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var got []string
		for _, doc := range docs {
			got = append(got, doc.Run.ID)
		}
		if !cmp.Equal(got, ids) {
			t.Errorf("%s: wrote %v, want %v", f, got, ids)
		}
	}
}
