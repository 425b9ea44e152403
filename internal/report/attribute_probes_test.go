package report

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

// probesReport is a probes run with known answers: ssbd costs 20% on
// sched-pipe, ib nothing; l1d_flush is not offered.
func probesReport(t *testing.T) *attribute.ProbeReport {
	t.Helper()
	base := []float64{10.0, 10.2, 9.9, 10.1, 10.3, 9.8, 10.05, 10.15}
	var up []float64
	for _, x := range base {
		up = append(up, x*1.2)
	}
	shuffled := []float64{10.15, 9.8, 10.3, 10.0, 10.05, 9.9, 10.2, 10.1}
	v := func(state string, procs int) []run.SpecTasks {
		return []run.SpecTasks{{Role: "runner-thread", Source: "/proc/PID/task/TID/status", State: state, Processes: 1, Tasks: 1},
			{Role: "worker", Source: "/proc/PID/task/TID/status", State: state, Processes: procs, Tasks: procs}}
	}
	sc := func(ssbd, ib string) []run.SpecControl {
		st := map[string]string{"off": "thread vulnerable", "force": "thread force mitigated"}
		it := map[string]string{"off": "conditional enabled", "force": "conditional force disabled"}
		return []run.SpecControl{{Control: "ssbd", Requested: ssbd, Verified: v(st[ssbd], 1)}, {Control: "ib", Requested: ib, Verified: v(it[ib], 1)}}
	}
	m := func(xs []float64) []run.Metric {
		return []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}
	}
	p := map[string]any{"loops": int64(50000), "mode": "process"}
	r := &run.Run{Schema: run.Schema, ID: "20261130T090000-abcdef", Results: []run.Result{
		{Workload: "sched-pipe", Params: p, Metrics: m(base), SpecControls: sc("off", "off")},
		{Workload: "sched-pipe", Params: p, Metrics: m(up), SpecControls: sc("force", "off")},
		{Workload: "sched-pipe", Params: p, Metrics: m(shuffled), SpecControls: sc("off", "force")},
	}}
	offers := []workload.SpecCtlOffer{{Control: "ssbd", Available: true, Kernel: "prctl enable"}, {Control: "ib", Available: true, Kernel: "prctl enable"},
		{Control: "l1d_flush", Kernel: "force_disable", Reason: "PR_GET_SPECULATION_CTRL: force_disable, not prctl: the flush is not enabled at boot (l1tf: Not affected); a task may choose only after booting with l1d_flush=on"}}
	rep, err := attribute.ProbeTaxes(r, offers, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	rep.Kernel = "6.12.0-test"
	return rep
}

func TestProbesGolden(t *testing.T) {
	rep := probesReport(t)
	for name, fn := range map[string]func(*bytes.Buffer) error{
		"probes.txt":  func(b *bytes.Buffer) error { return ProbesText(b, rep) },
		"probes.md":   func(b *bytes.Buffer) error { return ProbesMarkdown(b, rep) },
		"probes.json": func(b *bytes.Buffer) error { return ProbesJSON(b, rep) },
	} {
		var b bytes.Buffer
		if err := fn(&b); err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, filepath.Join("testdata", name), b.Bytes())
	}
	fitsWidths(t, "probes", func(w io.Writer) error { return ProbesText(w, rep) })
}

// TestProbesTitleLeavesOutWhatIsUnknown: a probe report from no stored run
// (--no-store) has no run id; neither title says "(run , kernel …)".
func TestProbesTitleLeavesOutWhatIsUnknown(t *testing.T) {
	rep := probesReport(t)
	rep.Run = ""
	var md, txt bytes.Buffer
	if err := ProbesMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := ProbesText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(md.String(), "\n"); first != "Per-task speculation controls (kernel 6.12.0-test)" {
		t.Errorf("markdown title %q", first)
	}
	if first, _, _ := strings.Cut(txt.String(), "\n"); first != "per-task speculation controls, one boot, kernel 6.12.0-test" {
		t.Errorf("text title %q", first)
	}
	rep.Kernel = ""
	md.Reset()
	if err := ProbesMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(md.String(), "\n"); first != "Per-task speculation controls" {
		t.Errorf("markdown title without run or kernel %q", first)
	}
}
