package mitigation

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestSpecLinesGolden parses every vulnerability string the spec lists and
// compares the result with a golden file a person can review line by line.
func TestSpecLinesGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "spec-lines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range strings.Split(string(in), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, raw, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		v := ParseVulnerability(name, raw)
		if v.State == Unknown && !strings.HasPrefix(raw, "Unknown") {
			t.Errorf("%s: %q parsed as unknown", name, raw)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	path := filepath.Join("testdata", "spec-lines.golden")
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("spec-lines.golden differs (-want +got):\n%s", diff)
	}
}
