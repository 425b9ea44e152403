package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// studyMatrix is the study's 2×2 matrix of published figures: WSL 2.x and
// WSL v3.0.2, each with mitigations on and off; WSL 2.x on is the baseline.
func studyMatrix(t *testing.T) []compare.Side {
	t.Helper()
	var out []compare.Side
	for _, n := range []string{"study-wsl2-on", "study-wsl2-off", "study-wsl3-on", "study-wsl3-off"} {
		d, err := baseline.Get(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, compare.BaselineSide(baseline.Prefix+n, d))
	}
	return out
}

// runSidesMulti are runSides' on and off, and "off2": off again in a boot
// of its own, 3% slower, lacking sched-pipe.
func runSidesMulti() []compare.Side {
	a, b := runSides()
	src := b.Runs[0]
	r := *src
	r.ID, r.Label = "20261130-off-2", "off2"
	r.Results = nil
	for _, res := range src.Results {
		if res.Workload == "sched-pipe" {
			continue
		}
		nr := res
		nr.Metrics = nil
		for _, m := range res.Metrics {
			nm := m
			nm.Samples = make([]float64, len(m.Samples))
			for i, x := range m.Samples {
				if m.Better == run.Higher {
					nm.Samples[i] = x / 1.03
				} else {
					nm.Samples[i] = x * 1.03
				}
			}
			nr.Metrics = append(nr.Metrics, nm)
		}
		r.Results = append(r.Results, nr)
	}
	env := map[string]any{}
	for k, v := range b.Envs[0] {
		env[k] = v
	}
	env["boot_id"] = "b4"
	c := compare.RunsSide("off2", compare.KindLabel, []*run.Run{&r}, []map[string]any{env})
	return []compare.Side{a, b, c}
}

func TestMultiGoldens(t *testing.T) {
	for name, sides := range map[string][]compare.Side{"study-matrix": studyMatrix(t), "runs-multi": runSidesMulti()} {
		mr, err := compare.CompareSides(sides, compare.Options{Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		fitsWidths(t, name, func(w io.Writer) error { return Text(w, mr, Options{}) })
		for _, format := range []string{"text", "md", "json", "csv", "benchfmt"} {
			testutil.Golden(t, filepath.Join("testdata", name+"."+format), render(t, mr, format, false))
		}
		testutil.GoldenPage(t, filepath.Join("testdata", name+".html"), render(t, mr, "html", false), "html.css", htmlCSS)
		testutil.Golden(t, filepath.Join("testdata", name+".color.text"), render(t, mr, "text", true))
	}
}

// TestMultiContent checks what the multi-side formats must say, beyond the
// goldens: a column per side, the change with its interval and adjusted p,
// the joint family, and the per-side sections.
func TestMultiContent(t *testing.T) {
	sides := runSidesMulti()
	mr, err := compare.CompareSides(sides, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	text := string(render(t, mr, "text", false))
	for _, want := range []string{
		"sectax compare: A = on  B = off  C = off2\n",
		"workload / metric",
		"B vs A", "C vs A",
		"Holm-corrected over every side's primary metrics together (4 hypotheses",
		"B = off against A = on\n",
		"C = off2 against A = on\n",
		"only in B: sched-pipe loops=1000 (engine native)",
		"C: no significant difference from A",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if n := strings.Count(text, "  What this means:\n"); n != 2 {
		t.Errorf("text: %d sections \"What this means\", want one a side", n)
	}
	// The first paragraph (wrapped to TextWidth) is every side's conclusion.
	first, _, _ := strings.Cut(text, "\nsectax compare:")
	first = strings.Join(strings.Fields(first), " ")
	if !strings.HasPrefix(first, "B: ") || !strings.Contains(first, "; C: ") {
		t.Errorf("first line %q", first)
	}

	var doc struct {
		Schema       string `json:"schema"`
		Multiplicity string `json:"multiplicity"`
		Family       int    `json:"family"`
		Baseline     struct {
			Ref string `json:"ref"`
		} `json:"baseline"`
		Conclusions []struct {
			Side string `json:"side"`
		} `json:"conclusions"`
		Comparisons []struct {
			Schema       string `json:"schema"`
			Multiplicity string `json:"multiplicity"`
			B            struct {
				Ref string `json:"ref"`
			} `json:"b"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal(render(t, mr, "json", false), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != compare.ComparisonSchema || doc.Multiplicity != compare.Multiplicity || doc.Family != 4 ||
		doc.Baseline.Ref != "on" || len(doc.Comparisons) != 2 || doc.Comparisons[1].B.Ref != "off2" ||
		doc.Comparisons[0].Schema != compare.Schema || doc.Comparisons[0].Multiplicity != compare.Multiplicity ||
		len(doc.Conclusions) != 2 || doc.Conclusions[1].Side != "off2" {
		t.Errorf("json document: %+v", doc)
	}

	rows, err := csv.NewReader(bytes.NewReader(render(t, mr, "csv", false))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// off: 3 workloads, 5 metrics; off2: the same 5 (no sched-pipe on A).
	if len(rows) != 1+5+5 || strings.Join(rows[0][:3], ",") != "baseline,side,workload" || rows[1][1] != "off" || rows[10][1] != "off2" {
		t.Errorf("csv: %d rows, header %v", len(rows), rows[0])
	}
	for _, r := range rows[1:] {
		if len(r) != len(CSVHeader) || r[0] != "on" {
			t.Errorf("csv row %v", r)
		}
	}

	// benchfmt: one label per side, every sample, read back by x/perf.
	rd := benchfmt.NewReader(bytes.NewReader(render(t, mr, "benchfmt", false)), "multi.benchfmt")
	labels := map[string]int{}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			labels[rec.GetConfig("label")]++
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		}
	}
	if labels["on"] != 36 || labels["off"] != 20 || labels["off2"] != 18 {
		t.Errorf("benchfmt results per label: %v", labels)
	}

	page := string(render(t, mr, "html", false))
	// The impact chart, and the medians and samples of each of 3
	// workloads, as for a pair.
	if n := strings.Count(page, "<svg "); n != 7 {
		t.Errorf("%d charts in the page, want 7", n)
	}
	if n := strings.Count(page, "<h3>What this means</h3>"); n != 2 {
		t.Errorf("HTML: %d sections \"What this means\", want one a side", n)
	}
	for _, want := range []string{"<title>sectax: on vs off vs off2</title>", "C vs A", "(4 hypotheses", ">C off2<",
		"only in B: <code>sched-pipe loops=1000 (engine native)</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// TestHostileTextMulti: the multi-side formats escape hostile labels,
// names, units and environment values as the pairwise ones do.
func TestHostileTextMulti(t *testing.T) {
	a, b := hostileSides()
	r := *b.Runs[0]
	r.ID = "third-run"
	c := compare.RunsSide("third\x1b[31m\n### three|", compare.KindLabel, []*run.Run{&r}, []map[string]any{{"boot_id": "b9"}})
	sides := []compare.Side{a, b, c}
	mr, err := compare.CompareSides(sides, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range []string{"text", "md", "json", "csv", "benchfmt", "html"} {
		out[f] = string(render(t, mr, f, false))
	}
	for f, s := range out {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 && c != '\n' && !(f == "html" && c == '\t') || c == 0x7f {
				t.Errorf("%s: raw control byte %#x at %d: %q", f, c, i, s[max(0, i-30):min(len(s), i+30)])
				break
			}
		}
	}
	noHostileLineStart(t, out, "### injected", "# unit", "## wl", "| fake | row |", "### micro", "### three")
	// Markdown tables keep their cells: 3 sides (5 separators), and the
	// workload table (8).
	markdownCells(t, out["md"], 5, 10)
	var doc struct {
		Comparisons []struct {
			B struct {
				Ref string `json:"ref"`
			} `json:"b"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil || len(doc.Comparisons) != 2 || doc.Comparisons[1].B.Ref != c.Ref {
		t.Errorf("json does not round-trip the label: %+v %v", doc, err)
	}
	rows, err := csv.NewReader(strings.NewReader(out["csv"])).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v", err)
	}
	for _, r := range rows {
		if len(r) != len(CSVHeader) {
			t.Errorf("csv row of %d fields: %q", len(r), r)
		}
	}
	rd := benchfmt.NewReader(strings.NewReader(out["benchfmt"]), "hostile")
	for rd.Scan() {
		if rec, ok := rd.Result().(*benchfmt.SyntaxError); ok {
			t.Errorf("benchfmt: %v", rec)
		}
	}
}

// TestOneLayout: a pair is laid out as three sides are, with one side
// fewer: the same CSV header, the same table head with one side's columns
// less, and in every prose format a section per side after A, each with
// what it means; the HTML page has the same sections per workload.
func TestOneLayout(t *testing.T) {
	ra, rb := runSides()
	pc, tc := comparison(t, ra, rb), comparison(t, runSidesMulti()...)
	pair, three := allFormats(t, pc), allFormats(t, tc)
	// The text's table as one, at a width where it needs no split
	// (table.parts; TestTableParts).
	for _, x := range []struct {
		out map[string]string
		c   *compare.Comparison
	}{{pair, pc}, {three, tc}} {
		var b strings.Builder
		if err := ComparisonFormats.Render(&b, "text", x.c, Options{Width: 1000}); err != nil {
			t.Fatal(err)
		}
		x.out["text"] = b.String()
	}
	first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	if first(pair["csv"]) != first(three["csv"]) || first(pair["csv"]) != strings.Join(CSVHeader, ",") {
		t.Errorf("CSV headers differ: %q, %q", first(pair["csv"]), first(three["csv"]))
	}
	head := func(s, prefix string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, prefix) {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		return ""
	}
	for f, prefix := range map[string]string{"text": "workload / metric", "md": "| workload | metric"} {
		p, m := head(pair[f], prefix), head(three[f], prefix)
		if p == "" || !strings.HasPrefix(m, p) || strings.TrimSpace(strings.TrimPrefix(m, p)) != map[string]string{"text": "C C vs A C equiv.", "md": "C | C vs A | C equiv. |"}[f] {
			t.Errorf("%s: the pair's table head %q is not the three sides' %q less one side", f, p, m)
		}
	}
	for f, section := range map[string]string{"text": "  What this means:\n", "md": "##### What this means\n", "html": "<h3>What this means</h3>"} {
		if n, m := strings.Count(pair[f], section), strings.Count(three[f], section); n != 1 || m != 2 {
			t.Errorf("%s: %d and %d sections %q, want one a side (1, 2)", f, n, m, section)
		}
	}
	for _, s := range []string{`<section class="workload">`, `<section id="environment">`, `<section id="impact"`} {
		if n, m := strings.Count(pair["html"], s), strings.Count(three["html"], s); n == 0 || n != m {
			t.Errorf("html: %d and %d of %q", n, m, s)
		}
	}
}
