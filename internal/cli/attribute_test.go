package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

// TestAttributeProbesLive runs the probes against the running kernel at
// tiny sizes: every control is either measured on every probe workload or
// listed as unavailable with the kernel's own answer.
func TestAttributeProbesLive(t *testing.T) {
	out, errs, code := sectax(t, fixedDeps(nil), "attribute", "probes", "--format", "json", "--no-store", "-q",
		"--runs", "2", "--warmup", "0", "--suite", "quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep attribute.ProbeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Controls) != 3 {
		t.Fatalf("controls %+v", rep.Controls)
	}
	for _, c := range rep.Controls {
		rows := 0
		for _, r := range rep.Rows {
			if r.Control == c.Control {
				rows++
				if !strings.Contains(r.Verified, "runner-thread 1 task") {
					t.Errorf("%s on %s %s: verified %q", c.Control, r.Workload, r.ParamsKey, r.Verified)
				}
			}
		}
		switch {
		case c.Available && rows != len(workload.Default().Probes()):
			t.Errorf("%s is available but measured on %d workloads", c.Control, rows)
		case !c.Available && (rows != 0 || !strings.HasPrefix(c.Reason, "PR_GET_SPECULATION_CTRL")):
			t.Errorf("%s is unavailable (%q) but has %d rows", c.Control, c.Reason, rows)
		}
	}
}

func TestRunSpecRefused(t *testing.T) {
	// A fake tree: the kernel's mode cannot be asked, so nothing is offered.
	_, errs, code := sectax(t, fixedDeps(nil), "--root", "../sysinfo/testdata/intel-baremetal", "run", "--no-store",
		"--only", "syscall-basic", "--spec", "ssbd=force")
	if code != 2 || !strings.Contains(errs, "--spec ssbd=force: this kernel does not offer ssbd per task: the kernel's mode is unknown") {
		t.Errorf("exit %d: %s", code, errs)
	}
	_, errs, code = sectax(t, fixedDeps(nil), "run", "--no-store", "--only", "syscall-basic", "--spec", "ssbd=sometimes")
	if code != 2 || !strings.Contains(errs, "ssbd takes force, on, off") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestAttributePlanGolden renders the plan of fake trees: Intel with PTI
// and two VERW users (the shared buffer clear), AMD Zen 2 with retbleed
// and SRSO, an old 4.15 kernel (parameters newer than the kernel), the
// development machine and a container without vulnerability files.
func TestAttributePlanGolden(t *testing.T) {
	trees := map[string]string{
		"intel-baremetal":   "../sysinfo/testdata/intel-baremetal",
		"amd-zen2":          "../attribute/testdata/amd-zen2",
		"old-4.15-intel":    "../sysinfo/testdata/old-4.15-intel",
		"firecracker-dev":   "../sysinfo/testdata/firecracker-dev",
		"container-novulns": "../sysinfo/testdata/container-novulns",
		"host-6.18":         testutil.AttributeRoot(t, "host-6.18"),
		"wsl2-5.15":         testutil.AttributeRoot(t, "wsl2-5.15"),
	}
	for name, root := range trees {
		for _, format := range []string{"text", "json"} {
			out, errs, code := sectax(t, fixedDeps(nil), "--root", root, "attribute", "plan", "--format", format)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", name, format, code, errs)
			}
			ext := map[string]string{"text": "txt", "json": "json"}[format]
			testutil.Golden(t, filepath.Join("testdata", "attribute", "plan-"+name+"."+ext), []byte(out))
		}
	}
}

// TestAttributePlanVectors: --plan vectors on a 6.18 host is spelled in
// the kernel's syntax; on WSL 2's 5.15 in per-bug parameters that kernel
// parses (no mitigations=auto,no_…, nothing newer than 5.15).
func TestAttributePlanVectors(t *testing.T) {
	for _, root := range []string{"host-6.18", "wsl2-5.15"} {
		dir := testutil.AttributeRoot(t, root)
		out, errs, code := sectax(t, fixedDeps(nil), "--root", dir, "attribute", "plan", "--plan", "vectors", "--format", "text")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", root, code, errs)
		}
		testutil.Golden(t, filepath.Join("testdata", "attribute", "plan-vectors-"+root+".txt"), []byte(out))
		js, _, _ := sectax(t, fixedDeps(nil), "--root", dir, "attribute", "plan", "--plan", "vectors", "--format", "json")
		var p attribute.Design
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range p.Configurations {
			if c.Kind != attribute.KindVectors {
				continue
			}
			n++
			if len(c.Expected)+len(c.Weakened) == 0 {
				t.Errorf("%s %s: a no-op", root, c.Name)
			}
			line := c.String()
			vec := strings.Contains(line, "mitigations=auto,no_")
			if root == "host-6.18" && (!vec || len(c.Params) != 1) || root == "wsl2-5.15" && (vec || strings.Contains(line, "tsa=") || strings.Contains(line, "vmscape=") || strings.Contains(line, "indirect_target_selection=")) {
				t.Errorf("%s %s: %s", root, c.Name, line)
			}
		}
		if n == 0 {
			t.Errorf("%s: no vector configuration", root)
		}
	}
	// On a fake root: the refusal comes after the snapshot is read.
	_, errs, code := sectax(t, fixedDeps(nil), "--root", testutil.AttributeRoot(t, "host-6.18"), "attribute", "plan", "--plan", "vector")
	if code != 2 || !strings.Contains(errs, "vectors") {
		t.Errorf("--plan vector: exit %d: %s", code, errs)
	}
}

func TestAttributePlanVERW(t *testing.T) {
	out, _, code := sectax(t, fixedDeps(nil), "--root", "../sysinfo/testdata/intel-baremetal", "attribute", "plan", "--format", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var p attribute.Design
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	got := map[string]attribute.Planned{}
	for _, c := range p.Configurations {
		got[c.Name] = c
	}
	// mds=off alone changes nothing: mmio_stale_data still needs VERW.
	if c := got["no-mds"]; c.Boot || len(c.Expected) != 0 || len(c.NoEffect) == 0 || !strings.Contains(c.NoEffect[0], "shared with mmio_stale_data") {
		t.Errorf("no-mds %+v", c)
	}
	if c := got["no-verw"]; !c.Boot || c.String() != "mds=off mmio_stale_data=off" || len(c.Expected) != 2 {
		t.Errorf("no-verw %+v", c)
	}
	if c := got["no-meltdown"]; c.String() != "pti=off" || len(c.Expected) != 1 || c.Expected[0].File != "meltdown" {
		t.Errorf("no-meltdown %+v", c)
	}
	if c := got["mitigations-only"]; c.SameAs != "off" || c.Boot {
		t.Errorf("mitigations-only %+v", c)
	}
	if c := got["rest-only"]; len(c.Expected) != 0 || len(c.Toggles) != 4 {
		t.Errorf("rest-only %+v", c)
	}
}

// TestAttributeReport imports crafted runs labelled with plan names and
// checks the attribution end to end (known answers: total 20%, no-meltdown
// 9.09%, interaction 10.91%), then the same with --config.
func TestAttributeReport(t *testing.T) {
	jitter := []float64{1.000, 1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0005}
	dir := t.TempDir()
	var files []string
	for i, arm := range []struct {
		label  string
		centre float64
	}{{"on", 12}, {"off", 10}, {"no-meltdown", 11}, {"unrelated", 5}} {
		xs := make([]float64, len(jitter))
		for j, f := range jitter {
			xs[j] = arm.centre * f
		}
		started := time.Date(2026, 11, 30, 9, i, 0, 0, time.UTC)
		r := run.Run{Schema: run.Schema, ID: fmt.Sprintf("20261130T09%02d00-00000%d", i, i), Label: arm.label, Started: started,
			Finished: started.Add(time.Minute), Status: run.StatusComplete, Suite: "quick", Engine: "native", Repetitions: 8,
			Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
				Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}
		b, _ := json.Marshal(r)
		f := filepath.Join(dir, arm.label+".json")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	t.Setenv("SECTAX_DB", filepath.Join(dir, "sectax.db"))
	if _, errs, code := sectax(t, fixedDeps(nil), append([]string{"import"}, files...)...); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	out, errs, code := sectax(t, fixedDeps(nil), "attribute", "report", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var att attribute.Attribution
	if err := json.Unmarshal([]byte(out), &att); err != nil {
		t.Fatal(err)
	}
	if len(att.Configs) != 3 || len(att.Workloads) != 1 {
		t.Fatalf("%s", out)
	}
	w := att.Workloads[0]
	if math.Abs(w.Total.TaxPct-20) > 1e-6 || len(w.Parts) != 1 || math.Abs(w.Parts[0].TaxPct-100*(12.0/11-1)) > 1e-6 ||
		math.Abs(*w.Interaction-(20-100*(12.0/11-1))) > 1e-6 {
		t.Errorf("%s", out)
	}
	charts := filepath.Join(dir, "charts")
	if _, errs, code := sectax(t, fixedDeps(nil), "attribute", "report", "--chart", charts); code != 0 {
		t.Fatalf("--chart: exit %d: %s", code, errs)
	}
	if fi, err := os.Stat(filepath.Join(charts, "01-syscall-basic-waterfall.png")); err != nil || fi.Size() < 1000 {
		t.Errorf("waterfall PNG: %v", err)
	}
	out, errs, code = sectax(t, fixedDeps(nil), "attribute", "report", "--config", "on=on", "--config", "no-x=unrelated")
	if code != 0 || !strings.Contains(out, "no-x ") || !strings.Contains(out, "configuration off (mitigations=off) has no runs") {
		t.Errorf("exit %d: %s%s", code, out, errs)
	}
	_, errs, code = sectax(t, fixedDeps(nil), "attribute", "report", "--config", "off=off")
	if code != 2 || !strings.Contains(errs, "no runs of configuration on") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestAttributeReportByVector: imported runs labelled as the vector plan
// names them; --by vector makes no-user_kernel and no-user_user the parts
// (tax 12/11 and 12/11.5, shares of the 20% total), no-meltdown moves to
// the others.
func TestAttributeReportByVector(t *testing.T) {
	jitter := []float64{1.000, 1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0005}
	dir := t.TempDir()
	var files []string
	centres := map[string]float64{"on": 12, "off": 10, "no-meltdown": 11.2, "no-user_kernel": 11, "no-user_user": 11.5}
	for i, label := range []string{"on", "off", "no-meltdown", "no-user_kernel", "no-user_user"} {
		xs := make([]float64, len(jitter))
		for j, f := range jitter {
			xs[j] = centres[label] * f
		}
		started := time.Date(2026, 11, 30, 9, i, 0, 0, time.UTC)
		r := run.Run{Schema: run.Schema, ID: fmt.Sprintf("20261130T09%02d00-00000%d", i, i), Label: label, Started: started,
			Finished: started.Add(time.Minute), Status: run.StatusComplete, Suite: "quick", Engine: "native", Repetitions: 8,
			Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
				Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}
		b, _ := json.Marshal(r)
		f := filepath.Join(dir, label+".json")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	t.Setenv("SECTAX_DB", filepath.Join(dir, "sectax.db"))
	if _, errs, code := sectax(t, fixedDeps(nil), append([]string{"import"}, files...)...); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	out, errs, code := sectax(t, fixedDeps(nil), "attribute", "report", "--by", "vector", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var att attribute.Attribution
	if err := json.Unmarshal([]byte(out), &att); err != nil {
		t.Fatal(err)
	}
	w := att.Workloads[0]
	if len(w.Parts) != 2 || w.Parts[0].Config != "no-user_kernel" || w.Parts[1].Config != "no-user_user" ||
		math.Abs(w.Parts[0].TaxPct-100*(12.0/11-1)) > 1e-6 || math.Abs(*w.Parts[1].SharePct-100*100*(12.0/11.5-1)/20) > 1e-6 ||
		len(w.Others) != 1 || w.Others[0].Config != "no-meltdown" || w.Parts[0].TaxPctInterval == nil {
		t.Errorf("%s", out)
	}
	if _, errs, code := sectax(t, fixedDeps(nil), "attribute", "report", "--by", "bug"); code != 2 || !strings.Contains(errs, "mitigation or vector") {
		t.Errorf("--by bug: exit %d: %s", code, errs)
	}
}
