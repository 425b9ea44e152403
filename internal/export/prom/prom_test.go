package prom

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

func mkRun(id, label string, onOff float64) *run.Run {
	return &run.Run{Schema: run.Schema, ID: id, Label: label, Status: run.StatusComplete, Engine: "native", Suite: "quick",
		Started: time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC),
		Results: []run.Result{
			{Workload: "syscall-basic", Engine: "native", Params: map[string]any{"loops": int64(1000)}, Metrics: []run.Metric{
				{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: []float64{0.20 * onOff, 0.21 * onOff, 0.19 * onOff, 0.205 * onOff, 0.195 * onOff, 0.2 * onOff, 0.202 * onOff, 0.198 * onOff}},
				{Name: "ops_per_sec", Unit: "ops/s", Better: run.Higher, Samples: []float64{5e6 / onOff, 4.8e6 / onOff, 5.2e6 / onOff, 4.9e6 / onOff, 5.1e6 / onOff, 5e6 / onOff, 4.95e6 / onOff, 5.05e6 / onOff}},
				// A metric whose medians are zero has no finite tax.
				{Name: "zero", Unit: "x", Better: run.Lower, Samples: []float64{0, 0, 0}},
			}},
		}}
}

func env(mode, boot string) map[string]any {
	return map[string]any{"mitigation_mode": mode, "boot_id": boot, "kernel": map[string]any{"release": "6.18.0"}}
}

func input(t *testing.T) Input {
	t.Helper()
	on, off := mkRun("r-on", "on", 1.25), mkRun("r-off", "off", 1)
	rep, err := compare.CompareSides([]compare.Side{compare.RunsSide("on", compare.KindLabel, []*run.Run{on}, []map[string]any{env("on", "b1")}),
		compare.RunsSide("off", compare.KindLabel, []*run.Run{off}, []map[string]any{env("off", "b2")})}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Input{Vulnerabilities: readVulnerabilities(t, "testdata/root"), Mode: "on", Latest: off, Tax: rep, OnRef: "on", OffRef: "off"}
}

// promtool runs `promtool check metrics` on the text: missing promtool
// fails under CI=true and skips elsewhere.
func promtool(t *testing.T, text []byte) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		testutil.Need(t, "promtool not found (Debian: apt-get install prometheus)")
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = bytes.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

func parse(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("output does not parse: %v", err)
	}
	return fams
}

func value(t *testing.T, f *dto.MetricFamily, match map[string]string) float64 {
	t.Helper()
	if f == nil {
		t.Fatalf("family missing")
	}
outer:
	for _, m := range f.Metric {
		for k, v := range match {
			found := false
			for _, l := range m.Label {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue outer
			}
		}
		if m.TimestampMs != nil {
			t.Errorf("%s has a timestamp", f.GetName())
		}
		return m.GetGauge().GetValue()
	}
	t.Fatalf("%s has no series %v", f.GetName(), match)
	return 0
}

func TestWriteGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, input(t)); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "export.prom"), b.Bytes())
	promtool(t, b.Bytes())
}

// TestWriteValues: the values mean what the HELP says: the on side is 25%
// slower, the interval holds the estimate, node_exporter's labels.
func TestWriteValues(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, input(t)); err != nil {
		t.Fatal(err)
	}
	fams := parse(t, b.Bytes())
	for _, metric := range []string{"usecs_per_op", "ops_per_sec"} {
		sel := map[string]string{"workload": "syscall-basic", "metric": metric, "on": "on", "off": "off"}
		tax := value(t, fams["sectax_tax_percent"], sel)
		lo := value(t, fams["sectax_tax_percent_lower"], sel)
		hi := value(t, fams["sectax_tax_percent_upper"], sel)
		p := value(t, fams["sectax_tax_p_value"], sel)
		if tax < 24.9 || tax > 25.1 || !(lo <= tax && tax <= hi) || lo < 10 || p > 0.01 {
			t.Errorf("%s: tax %v in [%v, %v], p %v; want 25%% inside its interval, significant", metric, tax, lo, hi, p)
		}
	}
	for _, m := range fams["sectax_tax_percent"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "metric" && l.GetValue() == "zero" {
				t.Error("a tax that is not a finite number was written")
			}
		}
	}
	if v := value(t, fams["sectax_tax_verified"], nil); v != 1 {
		t.Errorf("verified = %v", v)
	}
	if v := value(t, fams["sectax_cpu_vulnerability_info"], map[string]string{"codename": "spectre_v2", "state": "vulnerable", "mitigation": "IBPB: disabled; STIBP: disabled"}); v != 1 {
		t.Errorf("spectre_v2 info = %v", v)
	}
	if v := value(t, fams["sectax_latest_run_median"], map[string]string{"workload": "syscall-basic", "metric": "usecs_per_op", "params": "loops=1000"}); v < 0.1999 || v > 0.2001 {
		t.Errorf("median = %v", v)
	}
}

// TestWriteEmpty: with nothing known the output is empty, not an error.
func TestWriteEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, Input{}); err != nil || b.Len() != 0 {
		t.Fatalf("%q, %v", b.String(), err)
	}
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "sys"), 0o755)
	if v := readVulnerabilities(t, root); v != nil {
		t.Fatalf("no vulnerabilities directory: %v", v)
	}
}

// readVulnerabilities labels the vulnerabilities of root as the export
// does: sysinfo's snapshot read once, labelled here.
func readVulnerabilities(t *testing.T, root string) []Vulnerability {
	t.Helper()
	s, err := sysinfo.Collect(root)
	if err != nil {
		t.Fatal(err)
	}
	return Vulnerabilities(s.Vulnerabilities)
}

// TestVulnerabilitiesStayInRoot: a vulnerability file below a fake root
// that links out of it (here to a file holding a secret) is never read: it
// is labelled unknown with the reason; a tree without links reads as
// usual.
func TestVulnerabilitiesStayInRoot(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("Mitigation: top secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, sysinfo.VulnerabilitiesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meltdown"), []byte("Not affected\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vs := readVulnerabilities(t, root)
	if len(vs) != 1 || vs[0].State != "not affected" || vs[0].Mitigation != "" {
		t.Fatalf("plain tree: %+v", vs)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "spectre_v2")); err != nil {
		t.Fatal(err)
	}
	vs = readVulnerabilities(t, root)
	if len(vs) != 2 || vs[1].Codename != "spectre_v2" || vs[1].State != "unknown" || !strings.Contains(vs[1].Mitigation, "unreadable") {
		t.Fatalf("a link out of the root: %+v", vs)
	}
	for _, v := range vs {
		if strings.Contains(v.Mitigation, "secret") {
			t.Fatal("the file outside the root was read")
		}
	}
}

// TestVerdictDetail: the mitigation label is the text after the verdict,
// whole, as node_exporter gives it; the state is the classifier's, also
// where procfs has no state for the line.
func TestVerdictDetail(t *testing.T) {
	for raw, want := range map[string]Vulnerability{
		"Mitigation: PTI": {"meltdown", "mitigation", "PTI"},
		"Vulnerable: IBPB: disabled; STIBP: disabled": {"meltdown", "vulnerable", "IBPB: disabled; STIBP: disabled"},
		"Not affected":         {"meltdown", "not affected", ""},
		"Vulnerable":           {"meltdown", "vulnerable", ""},
		"Processor vulnerable": {"meltdown", "vulnerable", "Processor vulnerable"},
		"Unknown: Dependent on hypervisor status": {"meltdown", "unknown", "Dependent on hypervisor status"},
	} {
		got := Vulnerabilities([]mitigation.Vulnerability{mitigation.ParseVulnerability("meltdown", raw+"\n")})
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q: %+v, want %+v", raw, got, want)
		}
	}
}

// TestInvalidUTF8Labels: a vulnerability file (or its name) with invalid
// UTF-8 under --root still yields a textfile promtool accepts.
func TestInvalidUTF8Labels(t *testing.T) {
	vs := Vulnerabilities([]mitigation.Vulnerability{
		mitigation.ParseVulnerability("meltdown", "Mitigation: PTI \xff\xfe\x80 and \"quotes\" \\ \n"),
		mitigation.ParseVulnerability("bad\xffname", "Vulnerable\n"),
	})
	var buf bytes.Buffer
	if err := Write(&buf, Input{Vulnerabilities: vs, Mode: "on"}); err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(buf.Bytes()) {
		t.Fatalf("not UTF-8:\n%q", buf.String())
	}
	path, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool not found")
		}
		t.Skip("promtool not found")
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = bytes.NewReader(buf.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\n%q", err, out, buf.String())
	}
}

// TestLabelValuesHostile: label values from a stored run (label, workload,
// unit) and from the vulnerability files hold escape sequences, a NUL, a
// line break, quotes and backslashes: the exposition has no raw control
// character, promtool accepts it, and the parsed values are the escaped
// text (safetext.Line), quotes and backslashes intact.
func TestLabelValuesHostile(t *testing.T) {
	in := input(t)
	hostile := "on\x1b]52;c;cHduZWQ=\a\"q\\b\x00\n# HELP x\u009b\u202e"
	in.Latest.Label = hostile
	in.Latest.Results[0].Metrics[0].Unit = "µs\x1b[2J"
	in.Vulnerabilities = append(in.Vulnerabilities, Vulnerability{Codename: "x\r\x1b[2K", State: "vulnerable", Mitigation: "a\"b\\c\x07"})
	var b bytes.Buffer
	if err := Write(&b, in); err != nil {
		t.Fatal(err)
	}
	for i, r := range b.String() {
		if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e) {
			t.Fatalf("raw %U at %d: %q", r, i, b.String()[max(0, i-40):i+1])
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "# HELP x") {
			t.Errorf("a label value forged a line: %q", l)
		}
	}
	fams := parse(t, b.Bytes())
	if v := value(t, fams["sectax_latest_run_info"], map[string]string{"label": `on\x1b]52;c;cHduZWQ=\x07"q\b\x00\x0a# HELP x\u009b\u202e`}); v != 1 {
		t.Errorf("label value not found escaped: %v", v)
	}
	promtool(t, b.Bytes())
}
