package mitigation

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

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
	testutil.Golden(t, filepath.Join("testdata", "spec-lines.golden"), out.Bytes())
}
