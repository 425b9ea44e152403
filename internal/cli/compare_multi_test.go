package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/report"
)

// TestCompareMulti: three sides from the fixture runs (one run each), in
// every format, and the usage errors of a side count or reference that
// cannot make a comparison.
func TestCompareMulti(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatal(stderr)
	}
	sides := []string{"compare", "20261130T060000-on1", "20261130T070000-on2", "off"}
	for _, f := range []string{"text", "md", "json", "csv", "benchfmt", "html"} {
		e.golden("compare-multi-"+f, append(sides, "--format", f)...)
	}
	e.golden("compare-one-side", "compare", "on")
	e.golden("compare-duplicate-side", "compare", "on", "off", "on")
	e.golden("compare-run-on-two-sides", "compare", "on", "off", "20261130T080000-off1")

	// --png writes the impact chart and the Markdown links it.
	out := filepath.Join(e.dir, "post", "tax.md")
	if code, _, stderr := e.run(append(sides, "--format", "md", "-o", out, "--png", filepath.Join(e.dir, "post", "charts"))...); code != 0 {
		t.Fatal(stderr)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "(charts/impact.png)") {
		t.Errorf("markdown does not link the impact chart:\n%s", md)
	}
	if fi, err := os.Stat(filepath.Join(e.dir, "post", "charts", "impact.png")); err != nil || fi.Size() == 0 {
		t.Errorf("impact.png: %v", err)
	}

	// Two sides are the same document, with one comparison.
	_, two, _ := e.run("compare", "on", "off", "--format", "json")
	var doc struct {
		Schema      string
		Comparisons []struct{ Workloads []any }
	}
	if err := json.Unmarshal([]byte(two), &doc); err != nil || doc.Schema != "sectax.compare/v3" || len(doc.Comparisons) != 1 || len(doc.Comparisons[0].Workloads) == 0 {
		t.Errorf("two sides: schema %q, %d comparisons, %v", doc.Schema, len(doc.Comparisons), err)
	}
}

// TestStudyMatrix is the study's 2×2 matrix from the embedded baselines,
// WSL 2.x with mitigations on as the baseline: in every format, the
// renderer's output for the model of the four baselines (report's
// study-matrix.* goldens show the layout).
func TestStudyMatrix(t *testing.T) {
	e := newCLIEnv(t)
	names := []string{"study-wsl2-on", "study-wsl2-off", "study-wsl3-on", "study-wsl3-off"}
	sides := baselineSides(t, names...)
	args := []string{"compare"}
	for _, n := range names {
		args = append(args, "baseline:"+n)
	}
	for _, f := range report.ComparisonFormats.Names() {
		e.reachesRenderer(f, sides, append(args, "--format", f)...)
	}
	if _, err := os.Stat(e.db); err == nil {
		t.Error("comparing baselines created a database")
	}
}
