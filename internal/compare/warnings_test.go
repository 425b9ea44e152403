package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarningsOnePlace: every warning kind is listed once in Kinds, and
// compare words its warnings in warnings.go only (stats words its own).
func TestWarningsOnePlace(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds {
		if seen[string(k)] {
			t.Errorf("kind %q listed twice", k)
		}
		seen[string(k)] = true
	}
	if len(Kinds) != 14 {
		t.Errorf("%d kinds; a new kind goes into Kinds and this count", len(Kinds))
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "warnings.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{"stats.NewWarning(", "stats.Warning{Kind", "stats.Kind = "} {
			if strings.Contains(string(src), call) {
				t.Errorf("%s has %s: a warning is defined and worded in warnings.go", f, call)
			}
		}
	}
}
