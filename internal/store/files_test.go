package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
)

// TestReadFiles: documents come back in order; a run given in two files,
// a missing file and a malformed one are usage errors naming the file.
func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.WriteFile(a, exportJSON(t, testRun("20261130T060000-aaaaaa", "on")), 0o644)
	os.WriteFile(b, exportJSON(t, testRun("20261130T060000-aaaaaa", "off")), 0o644)
	docs, err := ReadFiles(context.Background(), []string{a})
	if err != nil || len(docs) != 1 || docs[0].Run.Label != "on" {
		t.Fatalf("ReadFiles(a) = %d docs, %v", len(docs), err)
	}
	if _, err := ReadFiles(context.Background(), []string{a, b}); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "is also in "+a) {
		t.Errorf("a run twice: %v", err)
	}
	if _, err := ReadFiles(context.Background(), []string{filepath.Join(dir, "missing")}); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("a missing file: %v", err)
	}
	os.WriteFile(b, []byte("{"), 0o644)
	if _, err := ReadFiles(context.Background(), []string{b}); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), b) {
		t.Errorf("a malformed file: %v", err)
	}
}
