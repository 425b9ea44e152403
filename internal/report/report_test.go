package report

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/perf/benchfmt"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// The goldens are testutil's: testutil.Golden, and for an HTML page
// testutil.GoldenPage, in which the inline charts are placeholders (the
// charts' structure is tested on its own, charts_structure_test.go; the
// page in a browser, browser_test.go) and html.css, the style sheet every
// page holds verbatim, is one line (TestStyleSheet checks it once).

func baselineSides(t *testing.T) (compare.Side, compare.Side) {
	t.Helper()
	on, err := baseline.Get("study-wsl3-on")
	if err != nil {
		t.Fatal(err)
	}
	off, err := baseline.Get("study-wsl3-off")
	if err != nil {
		t.Fatal(err)
	}
	return compare.BaselineSide("baseline:study-wsl3-on", on), compare.BaselineSide("baseline:study-wsl3-off", off)
}

func metric(name, unit string, better run.Better, xs ...float64) run.Metric {
	return run.Metric{Name: name, Unit: unit, Better: better, Samples: xs}
}

// runSides are two labels of real-looking runs: A spans two boots, B one;
// a negative control moved; the microcode changed.
func runSides() (compare.Side, compare.Side) {
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	mk := func(id, label string, scale float64) *run.Run {
		s := func(xs ...float64) []float64 {
			out := make([]float64, len(xs))
			for i, x := range xs {
				out[i] = x * scale
			}
			return out
		}
		return &run.Run{Schema: run.Schema, ID: id, Label: label, Started: t0, Status: run.StatusComplete,
			Engine: "native", ToolVersion: "0.1.0",
			Results: []run.Result{
				{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000000)}, Metrics: []run.Metric{
					metric("usecs_per_op", "µs/op", run.Lower, s(0.2, 0.21, 0.19, 0.2, 0.22, 0.2)...),
					metric("ops_per_sec", "ops/s", run.Higher, 5e6/scale, 4.76e6/scale, 5.26e6/scale, 5e6/scale, 4.55e6/scale, 5e6/scale)}},
				{Workload: "sched-messaging", Params: map[string]any{"groups": int64(2), "loops": int64(100), "ipc": "socket", "mode": "process"}, Metrics: []run.Metric{
					metric("total_s", "s", run.Lower, s(0.5, 0.52, 0.49, 0.51, 0.5, 0.55)...),
					metric("work_s", "s", run.Lower, s(0.45, 0.47, 0.44, 0.46, 0.45, 0.5)...)}},
				{Workload: "ctl-user", Params: map[string]any{"loops": int64(1000)}, Metrics: []run.Metric{
					metric("usecs_per_op", "µs/op", run.Lower, 1.0, 1.01, 0.99, 1.0, 1.02, 1.0)}},
			}}
	}
	env := func(mode, boot, microcode, cmd string, vuln map[string]any) map[string]any {
		return map[string]any{"kernel": map[string]any{"release": "6.18.0"}, "cmdline": map[string]any{"raw": cmd},
			"mitigation_mode": mode, "boot_id": boot, "hostname": "box",
			"cpu":             map[string]any{"model_name": "Test CPU", "microcode": microcode},
			"vulnerabilities": []any{vuln}}
	}
	on1, on2 := mk("20261130-on-1", "on", 1), mk("20261130-on-2", "on", 1.02)
	off := mk("20261130-off-1", "off", 0.4)
	off.Results[2].Metrics[0].Samples = []float64{1.1, 1.11, 1.09, 1.1, 1.12, 1.1}
	off.Results = append(off.Results, run.Result{Workload: "sched-pipe", Params: map[string]any{"loops": int64(1000)},
		Metrics: []run.Metric{metric("usecs_per_op", "µs/op", run.Lower, 5, 5.1)}})
	vOn := map[string]any{"name": "meltdown", "raw": "Mitigation: PTI", "state": "mitigated", "mitigation": "PTI"}
	vOff := map[string]any{"name": "meltdown", "raw": "Vulnerable", "state": "vulnerable"}
	a := compare.RunsSide("on", compare.KindLabel, []*run.Run{on1, on2}, []map[string]any{
		env("on", "b1", "0x10", "root=/dev/vda quiet", vOn), env("on", "b2", "0x10", "root=/dev/vda quiet", vOn)})
	b := compare.RunsSide("off", compare.KindLabel, []*run.Run{off}, []map[string]any{
		env("off", "b3", "0x11", "root=/dev/vda quiet mitigations=off", vOff)})
	return a, b
}

// comparison compares the sides, the first as the baseline, at α = 0.05.
func comparison(t testing.TB, sides ...compare.Side) *compare.Comparison {
	t.Helper()
	c, err := compare.CompareSides(sides, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// render lays c out in format through the registry, as the CLI does.
func render(t testing.TB, c *compare.Comparison, format string, color bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ComparisonFormats.Render(&b, format, c, Options{Color: color}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGoldens(t *testing.T) {
	ba, bb := baselineSides(t)
	ra, rb := runSides()
	for name, sides := range map[string][2]compare.Side{"study-wsl3": {ba, bb}, "runs": {ra, rb}} {
		c := comparison(t, sides[0], sides[1])
		fitsWidths(t, name, func(w io.Writer) error { return Text(w, c, Options{}) })
		for _, format := range []string{"text", "md", "json", "csv", "benchfmt"} {
			testutil.Golden(t, filepath.Join("testdata", name+"."+format), render(t, c, format, false))
		}
		testutil.Golden(t, filepath.Join("testdata", name+".color.text"), render(t, c, "text", true))
	}
}

// TestStudyMarkdown checks the study's headline figures in the Markdown
// table, beyond the golden file.
func TestStudyMarkdown(t *testing.T) {
	ba, bb := baselineSides(t)
	md := string(render(t, comparison(t, ba, bb), "md", false))
	for _, want := range []string{
		"| `syscall-basic` loops=10000000 | usecs_per_op | 0.1868 µs/op | 0.0676 µs/op | −63.81% |",
		"|  | ops_per_sec | 5,353,135 ops/s | 14,798,678 ops/s | +176.45% |",
		"|  | ops_per_sec | 123,159 ops/s | 217,736 ops/s | +76.79% |",
		"| total_s | 1.682 s | 0.997 s | −40.73% |",
		"published single figures carry no interval",
		"added `quiet` `loglevel=0` `audit=0` `mitigations=off` `vsyscall=none`; removed nothing",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// TestBenchfmtReadable reads the benchfmt output back with x/perf's own
// reader: every sample, unit and configuration key survives.
func TestBenchfmtReadable(t *testing.T) {
	ra, rb := runSides()
	b := bytes.NewReader(render(t, comparison(t, ra, rb), "benchfmt", false))
	rd := benchfmt.NewReader(b, "runs.benchfmt")
	type key struct{ label, name, unit string }
	got := map[key][]float64{}
	cfg := map[string]string{}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			lbl := rec.GetConfig("label")
			cfg[lbl] = rec.GetConfig("mitigations") + " " + rec.GetConfig("kernel")
			for _, v := range rec.Values {
				k := key{lbl, rec.Name.String(), v.Unit}
				got[k] = append(got[k], v.Value)
			}
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"on": "on 6.18.0", "off": "off 6.18.0"}, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	usecs := got[key{"on", "syscall-basic/loops=1000000", "sec/op"}]
	if len(usecs) != 12 || !approx(usecs[0], 0.2e-6) || !approx(usecs[11], 0.2*1.02e-6) {
		t.Errorf("syscall-basic sec/op on side A = %v", usecs)
	}
	if w := got[key{"off", "sched-messaging/groups=2/ipc=socket/loops=100/mode=process", "work-sec"}]; len(w) != 6 || !approx(w[0], 0.45*0.4) {
		t.Errorf("work-sec = %v", w)
	}
	if p := got[key{"off", "sched-pipe/loops=1000", "sec/op"}]; len(p) != 2 {
		t.Errorf("sched-pipe = %v", p)
	}
}

func approx(a, b float64) bool { return a-b < 1e-15 && b-a < 1e-15 }

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{5353135: "5,353,135", 0.1868: "0.1868", 8.12: "8.12", 1.682: "1.682",
		341: "341", 9999.6: "10,000", 0.00001234: "1.234e-05", -1234: "−1,234", 14798678: "14,798,678"} {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
}
