package prom

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// A metric name, not the middle of a recording rule's level:name:op.
var metricName = regexp.MustCompile(`(?:^|[^:\w])(sectax_[a-z_]+)\b`)

// checkNames fails when an expression uses a sectax_ metric the export
// does not write (the golden holds every family).
func checkNames(t *testing.T, where, expr string) {
	t.Helper()
	golden, err := os.ReadFile(filepath.Join("testdata", "export.prom"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range metricName.FindAllStringSubmatch(expr, -1) {
		n := m[1]
		if !strings.Contains(string(golden), "# TYPE "+n+" ") {
			t.Errorf("%s uses %s, which sectax does not export", where, n)
		}
	}
}

// TestDocsUseExportedMetrics: the Grafana dashboard and the Prometheus
// rules in docs/ query metrics the export writes, in PromQL that promtool
// accepts.
func TestDocsUseExportedMetrics(t *testing.T) {
	docs := filepath.Join("..", "..", "..", "docs")
	b, err := os.ReadFile(filepath.Join(docs, "grafana-sectax.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("grafana-sectax.json: %v", err)
	}
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	n := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			checkNames(t, "panel "+p.Title, tg.Expr)
			n++
			fmt.Fprintf(&rules, "      - record: dashboard:expr%d\n        expr: %q\n", n, tg.Expr)
		}
	}
	if n < 5 {
		t.Fatalf("dashboard has %d queries", n)
	}
	ruleFile, err := os.ReadFile(filepath.Join(docs, "prometheus-rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	checkNames(t, "prometheus-rules.yml", string(ruleFile))
	path, err := exec.LookPath("promtool")
	if err != nil {
		testutil.Need(t, "promtool not found")
	}
	dashRules := filepath.Join(t.TempDir(), "dashboard.yml")
	if err := os.WriteFile(dashRules, []byte(rules.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(docs, "prometheus-rules.yml"), dashRules} {
		if out, err := exec.Command(path, "check", "rules", f).CombinedOutput(); err != nil {
			t.Errorf("promtool check rules %s: %v\n%s", filepath.Base(f), err, out)
		}
	}
}
