package report

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
)

// holmSides: three workloads, one side each in its own boot, mitigations
// on against off. Workload "gamma"'s primary metric has U = 5 on 6+6
// samples, raw p = 38/924 = 0.041, significant on its own; the other two
// move little (p ≈ 0.3–0.4). Holm multiplies the smallest p by 3: 0.123,
// not significant.
func holmSides(extra ...run.Result) (compare.Side, compare.Side) {
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	a := []float64{10, 11, 12, 13, 14, 15}
	inv := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = 1e6 / x
		}
		return out
	}
	res := func(id string, xs []float64) run.Result {
		return run.Result{Workload: id, Params: map[string]any{"loops": int64(10)}, Metrics: []run.Metric{
			metric("usecs_per_op", "µs/op", run.Lower, xs...), metric("ops_per_sec", "ops/s", run.Higher, inv(xs)...)}}
	}
	mk := func(id, label string, g, b, c []float64) *run.Run {
		return &run.Run{Schema: run.Schema, ID: id, Label: label, Started: t0, Status: run.StatusComplete, Engine: "native",
			Results: append([]run.Result{res("alpha", g), res("beta", b), res("gamma", c)}, extra...)}
	}
	on := mk("r-on", "on", a, a, a)
	off := mk("r-off", "off", []float64{10.5, 11.5, 12.5, 13.5, 16, 17}, []float64{10.5, 11.5, 12.5, 13.5, 14.5, 15.5},
		[]float64{12.5, 13.5, 16, 17, 18, 19})
	env := func(mode, boot, cmd string) map[string]any {
		return map[string]any{"kernel": map[string]any{"release": "6.18.0"}, "cmdline": map[string]any{"raw": cmd},
			"mitigation_mode": mode, "boot_id": boot, "hostname": "box"}
	}
	return compare.RunsSide("on", compare.KindLabel, []*run.Run{on}, []map[string]any{env("on", "b1", "root=/dev/vda")}),
		compare.RunsSide("off", compare.KindLabel, []*run.Run{off}, []map[string]any{env("off", "b2", "root=/dev/vda mitigations=off")})
}

func allFormats(t *testing.T, c *compare.Comparison) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range ComparisonFormats.Names() {
		out[f] = string(render(t, c, f, false))
	}
	return out
}

// TestHolmAllFormats: gamma is significant at p = 0.041 alone, not after
// Holm's correction over the three primary metrics; its secondary metric
// follows it; every format says "~" and shows both p-values.
func TestHolmAllFormats(t *testing.T) {
	a, b := holmSides()
	rep := comparison(t, a, b).Comparisons[0]
	var gamma []compare.Metric
	for _, w := range rep.Workloads {
		if w.ID == "gamma" {
			gamma = w.Metrics
		}
	}
	if len(gamma) != 2 {
		t.Fatalf("gamma: %+v", gamma)
	}
	for _, m := range gamma {
		if m.Test == nil || !m.Test.Significant || m.Test.P > 0.0412 || m.Test.P < 0.041 {
			t.Fatalf("%s: raw test %+v, want p = 0.041, significant alone", m.Name, m.Test)
		}
		if m.PAdjusted == nil || *m.PAdjusted < 0.123 || *m.PAdjusted > 0.124 || m.Significant || m.Verdict != compare.VerdictSame || metricDelta(m) != "~" {
			t.Errorf("%s (%s): adjusted p %v significant %v verdict %s delta %s; want 0.123, ~", m.Name, m.Role, m.PAdjusted, m.Significant, m.Verdict, metricDelta(m))
		}
	}
	if rep.Conclusion.Kind != compare.ConclusionNoDifference || rep.Geomean == nil || rep.Geomean.Significant {
		t.Errorf("conclusion %+v geomean %+v", rep.Conclusion, rep.Geomean)
	}
	out := allFormats(t, comparison(t, a, b))
	const first = "b: no significant difference from a (no workload"
	for f, s := range out {
		if f == "csv" || f == "json" {
			continue // tables of data: the conclusion is in json's "conclusion"
		}
		line, _, _ := strings.Cut(s, "\n")
		if f == "html" {
			line = s[strings.Index(s, `<p class="geomean">`):]
			line, _, _ = strings.Cut(line, "\n")
		}
		if !strings.Contains(strings.ToLower(line), first) {
			t.Errorf("%s: first line %q does not say %q", f, line, first)
		}
	}
	for f, want := range map[string]string{
		"text": "16.5 µs/op ±24%  ~ p=0.123", // its interval, [+3.85%, +60.00%], on the line below
		"md":   "| usecs_per_op | 12.5 µs/op ±20% | 16.5 µs/op ±24% | ~ \\[+3.85%, +60.00%\\] p=0.123 |",
		"html": `<td class="num">0.76×</td><td class="num">0.041</td><td class="num">0.123</td><td class="num">6&#43;6</td><td class="verdict">~<span class="range">? (≥`,
	} {
		if !strings.Contains(out[f], want) {
			t.Errorf("%s lacks %q:\n%s", f, want, out[f])
		}
	}
	if !strings.Contains(out["text"], "  ops_per_sec") || strings.Contains(out["text"], "worse") || strings.Contains(out["md"], "worse") ||
		strings.Contains(out["html"], `class="verdict">worse`) {
		t.Errorf("a format calls something worse")
	}
	var v3 struct {
		Comparisons []struct {
			Conclusion struct{ Kind string }
			Workloads  []struct {
				Workload string
				Metrics  []struct {
					Name, Verdict, Role string
					Significant         bool
					PAdjusted           float64 `json:"p_adjusted"`
					Test                struct {
						P           float64
						Significant bool
					}
					RatioInterval *struct{ Lo, Hi float64 } `json:"ratio_interval"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out["json"]), &v3); err != nil || len(v3.Comparisons) != 1 {
		t.Fatalf("json: %d comparisons, %v", len(v3.Comparisons), err)
	}
	doc := v3.Comparisons[0]
	if doc.Conclusion.Kind != compare.ConclusionNoDifference {
		t.Errorf("json conclusion %q", doc.Conclusion.Kind)
	}
	for _, m := range doc.Workloads[2].Metrics {
		if m.Significant || !m.Test.Significant || m.Verdict != "~" || m.PAdjusted < 0.123 || m.RatioInterval == nil {
			t.Errorf("json gamma %s: %+v", m.Name, m)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(out["csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, r := range rows[1:] {
		if r[col["workload"]] == "gamma" && (r[col["significant"]] != "false" || r[col["verdict"]] != "~" || !strings.HasPrefix(r[col["p_adjusted"]], "0.123") || !strings.HasPrefix(r[col["p"]], "0.041")) {
			t.Errorf("csv gamma row %v", r)
		}
	}
}

// TestSameMitigationsFirstLine: with the same mitigations on both sides
// every format's first line says that this is noise, not a tax.
func TestSameMitigationsFirstLine(t *testing.T) {
	a, b := holmSides()
	b.Envs[0] = map[string]any{"kernel": map[string]any{"release": "6.18.0"}, "cmdline": map[string]any{"raw": "root=/dev/vda"},
		"mitigation_mode": "on", "boot_id": "b2", "hostname": "box"}
	rep := comparison(t, a, b).Comparisons[0]
	if rep.Conclusion.Kind != compare.ConclusionSameMitigations {
		t.Fatalf("conclusion %+v", rep.Conclusion)
	}
	for f, s := range allFormats(t, comparison(t, a, b)) {
		if f == "csv" {
			continue // a table of numbers: no prose
		}
		line, _, _ := strings.Cut(s, "\n")
		if f == "json" {
			line = s[:strings.Index(s, `"alpha"`)]
		}
		if f == "html" {
			line = s[strings.Index(s, `<p class="geomean">`):]
		}
		if !strings.Contains(strings.ToLower(line), "b: no mitigation changed against a") &&
			!strings.Contains(line, `"kind": "same-mitigations"`) {
			t.Errorf("%s: first line %.200q", f, line)
		}
	}
}
