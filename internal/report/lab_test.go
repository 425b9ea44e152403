package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// withLab gives every run of the sides a lab block of accel.
func withLab(accel, cpu string, sides ...compare.Side) {
	for _, s := range sides {
		for _, r := range s.Runs {
			r.Lab = &run.Lab{QEMUVersion: "10.0.3", Accel: accel, CPUModel: cpu, MemoryMiB: 1024, VCPUs: 2,
				Kernel: "debian", KernelImage: "/boot/vmlinuz-6.18.0", LabParams: "console=ttyS0 panic=-1"}
		}
	}
}

// labHost is the host of withLab's runs (run.Lab.Host).
const labHost = "lab debian"

// labFormats renders a comparison in every format.
func labFormats(t *testing.T, c *compare.Comparison) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range ComparisonFormats.Names() {
		out[f] = render(t, c, f, false)
	}
	return out
}

// checkHeadline asserts that each format says the TCG headline first: the
// first line of text, Markdown and benchfmt, the conclusion of JSON, the
// accel column of CSV, the headline of HTML.
func checkHeadline(t *testing.T, name string, out map[string][]byte) {
	t.Helper()
	first := func(b []byte) string {
		line, _, _ := strings.Cut(string(b), "\n")
		return line
	}
	for _, f := range []string{"text", "md", "benchfmt"} {
		if l := first(out[f]); !strings.Contains(l, compare.TCGHeadline) {
			t.Errorf("%s %s: first line %q lacks %q", name, f, l, compare.TCGHeadline)
		}
	}
	if !strings.HasPrefix(first(out["text"]), compare.TCGHeadline+" — ") {
		t.Errorf("%s text: the headline does not come first: %q", name, first(out["text"]))
	}
	var doc map[string]any
	if err := json.Unmarshal(out["json"], &doc); err != nil {
		t.Fatal(err)
	}
	if headline := doc["headline"]; headline != compare.TCGHeadline {
		t.Errorf("%s json: headline %v", name, headline)
	}
	if lab, _ := doc["lab"].(map[string]any); lab["accel"] != "tcg" || lab["emulated"] != true {
		t.Errorf("%s json: lab %v", name, doc["lab"])
	}
	sc := bufio.NewScanner(bytes.NewReader(out["csv"]))
	sc.Scan()
	if !strings.HasSuffix(sc.Text(), ",accel") {
		t.Errorf("%s csv: header %q lacks accel", name, sc.Text())
	}
	rows := 0
	for sc.Scan() {
		rows++
		if !strings.HasSuffix(sc.Text(), ",tcg") {
			t.Errorf("%s csv: row %q is not marked tcg", name, sc.Text())
		}
	}
	if rows == 0 {
		t.Errorf("%s csv: no rows", name)
	}
	h := string(out["html"])
	i := strings.Index(h, `class="geomean"`)
	if i < 0 || !strings.Contains(h[i:i+200], compare.TCGHeadline) {
		t.Errorf("%s html: the headline lacks %q", name, compare.TCGHeadline)
	}
}

// TestTCGEveryFormat: runs measured under TCG say so first in every
// format, and the report carries the emulated warning.
func TestTCGEveryFormat(t *testing.T) {
	a, b := runSides()
	withLab("tcg", "Skylake-Client-v1", a, b)
	rep := comparison(t, a, b).Comparisons[0]
	if !rep.HasWarning(compare.KindEmulated) || rep.Warnings[0].Kind != compare.KindEmulated {
		t.Errorf("the emulated warning is not first: %v", rep.Warnings)
	}
	out := labFormats(t, comparison(t, a, b))
	checkHeadline(t, "pairwise", out)
	pa, pb := runSides()
	plain := labFormats(t, comparison(t, pa, pb))
	for _, f := range []string{"text", "md", "json", "csv", "benchfmt", "html"} {
		onlyLabDiffers(t, "pairwise "+f, plain[f], out[f])
	}

	sides := runSidesMulti()
	withLab("tcg", "Skylake-Client-v1", sides...)
	mr, err := compare.CompareSides(sides, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := compare.CompareSides(runSidesMulti(), compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	mout := map[string][]byte{}
	for _, f := range []string{"text", "md", "json", "csv", "benchfmt", "html"} {
		mout[f] = render(t, mr, f, false)
		onlyLabDiffers(t, "multi "+f, render(t, pr, f, false), mout[f])
	}
	checkHeadline(t, "multi", mout)
}

// onlyLabDiffers fails unless the render of runs measured under TCG
// differs from the render of the same runs measured on a machine (whose
// goldens are runs.* and runs-multi.*) only where the lab shows, which
// checkHeadline and TestLabWarningsNameBoots assert: the headline before
// the conclusion, the emulated warning, the lab's --boots fixes instead
// of a reboot, the tcg accel column, the JSON lab block, and the host: the
// lab and its kernel (labHost) where the machine's render names its host.
func onlyLabDiffers(t *testing.T, name string, plain, tcg []byte) {
	t.Helper()
	norm := func(l string) string { return strings.TrimSuffix(strings.TrimSpace(l), ",") }
	left := map[string]int{}
	for _, l := range unwrapLines(string(plain)) {
		left[norm(l)]++
	}
	var added []string
	for _, l := range unwrapLines(string(tcg)) {
		if n := norm(l); left[n] > 0 {
			left[n]--
		} else {
			added = append(added, n)
		}
	}
	isLab := func(l string) bool {
		for _, s := range []string{compare.TCGHeadline, "tcg", "--boots", "Skylake-Client-v1", `"emulated"`, `"lab"`, `"cpu_models"`, labHost} {
			if strings.Contains(l, s) {
				return true
			}
		}
		return l == "{" || l == "}" || l == "]"
	}
	withoutHeadline := map[string]bool{}
	for _, l := range added {
		if !isLab(l) {
			t.Errorf("%s: under TCG a line that is not the lab's: %q", name, l)
		}
		withoutHeadline[strings.Replace(l, compare.TCGHeadline+" — ", "", 1)] = true
		withoutHeadline[strings.TrimSuffix(l, ",tcg")+",none"] = true
		withoutHeadline[strings.ReplaceAll(l, labHost, "box")] = true // the machine's hostname
	}
	for l, n := range left {
		if n > 0 && !withoutHeadline[l] && !strings.Contains(l, "reboot") {
			t.Errorf("%s: a line of the machine's render that TCG lost: %q", name, l)
		}
	}
}

// TestKVMNote: runs measured in KVM guests carry no TCG headline, but a
// note that the figures are a guest's costs.
func TestKVMNote(t *testing.T) {
	a, b := runSides()
	withLab("kvm", "host", a, b)
	out := labFormats(t, comparison(t, a, b))
	for f, o := range out {
		if strings.Contains(string(o), "TCG") {
			t.Errorf("%s mentions TCG under kvm", f)
		}
	}
	if !strings.Contains(string(out["text"]), "cost in a guest") {
		t.Errorf("text lacks the KVM note:\n%s", out["text"])
	}
	testutil.Golden(t, filepath.Join("testdata", "lab-kvm.text"), out["text"])
	testutil.Golden(t, filepath.Join("testdata", "lab-kvm.csv"), out["csv"])
}

// TestAttributionTCG: an attribution of runs emulated under TCG says so
// first in text and Markdown and carries the headline in JSON; one of
// runs measured on a machine itself does not.
func TestAttributionTCG(t *testing.T) {
	if a := attributionReport(t); a.Headline != "" {
		t.Errorf("bare runs: headline %q", a.Headline)
	}
	jitter := []float64{1.000, 1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0005}
	mk := func(id string, centre float64) []*run.Run {
		xs := make([]float64, len(jitter))
		for i, j := range jitter {
			xs[i] = centre * j
		}
		return []*run.Run{{Schema: run.Schema, ID: id, Label: id, Lab: &run.Lab{Accel: "tcg", CPUModel: "Skylake-Client-v1"},
			Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
				Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}}
	}
	a, err := attribute.Attribute([]attribute.Arm{{Name: "on", Runs: mk("r-on", 12)}, {Name: "off", Runs: mk("r-off", 10)},
		{Name: "no-meltdown", Runs: mk("r-nopti", 11)}}, []string{"on", "no-meltdown", "off"}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var txt, md, js bytes.Buffer
	if err := AttributionText(&txt, a); err != nil {
		t.Fatal(err)
	}
	if err := AttributionMarkdown(&md, a); err != nil {
		t.Fatal(err)
	}
	if err := AttributionJSON(&js, a); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": txt.String(), "md": md.String()} {
		if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, compare.TCGHeadline) {
			t.Errorf("%s: first line %q", name, first)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc["headline"] != compare.TCGHeadline {
		t.Errorf("json headline %v (%v)", doc["headline"], err)
	}
}

// TestLabWarningsNameBoots: in a lab comparison every fix names --boots,
// the fix of a lab, and none says to reboot (the few-samples warning of a
// side whose sample is a boot once did).
func TestLabWarningsNameBoots(t *testing.T) {
	a, b := runSides()
	withLab("kvm", "host", a, b)
	text := strings.Join(strings.Fields(string(render(t, comparison(t, a, b), "text", false))), " ") // unwrapped
	if strings.Contains(text, "reboot") {
		t.Errorf("a lab's warnings say reboot:\n%s", text)
	}
	if !strings.Contains(text, "run sectax lab again with a larger --boots") || !strings.Contains(text, "run sectax lab again with --boots 2 or more") {
		t.Errorf("a lab's warnings do not name --boots:\n%s", text)
	}
}

// unwrapLines undoes wrap for a comparison line by line: a line indented
// deeper than the line that starts its paragraph continues it.
func unwrapLines(s string) []string {
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	var out []string
	start := -1
	for _, l := range strings.Split(s, "\n") {
		if len(out) > 0 && strings.TrimSpace(l) != "" && strings.TrimSpace(out[len(out)-1]) != "" && indent(l) > start {
			out[len(out)-1] += " " + strings.TrimSpace(l)
			continue
		}
		out = append(out, l)
		start = indent(l)
	}
	return out
}
