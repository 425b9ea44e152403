package baseline

import (
	"errors"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

func figure(t *testing.T, d *Dataset, workload, metric string) Figure {
	t.Helper()
	for _, r := range d.Results {
		if r.Workload != workload {
			continue
		}
		for _, m := range r.Metrics {
			if m.Name == metric {
				return m
			}
		}
	}
	t.Fatalf("%s has no %s %s", d.Name, workload, metric)
	return Figure{}
}

// TestStudyFigures checks the datasets against the figures quoted in the
// issue (and the study text), one by one.
func TestStudyFigures(t *testing.T) {
	want := map[string]map[string]float64{
		"study-wsl3-on": {"syscall-basic ops_per_sec": 5353135, "syscall-basic usecs_per_op": 0.1868,
			"sched-pipe ops_per_sec": 123159, "sched-pipe usecs_per_op": 8.12, "sched-messaging total_s": 1.682,
			"go-build user_s": 341},
		"study-wsl3-off": {"syscall-basic ops_per_sec": 14798678, "syscall-basic usecs_per_op": 0.0676,
			"sched-pipe ops_per_sec": 217736, "sched-pipe usecs_per_op": 4.59, "sched-messaging total_s": 0.997,
			"go-build user_s": 343},
		"study-wsl2-on": {"sched-pipe ops_per_sec": 22493, "sched-pipe usecs_per_op": 44.45,
			"go-build sys_s": 24.89, "go-build wall_s": 26.98, "go-build cpu_pct": 395},
		"study-wsl2-off": {"sched-pipe ops_per_sec": 26659, "sched-pipe usecs_per_op": 37.51,
			"go-build sys_s": 13.51, "go-build wall_s": 18.31, "go-build cpu_pct": 522},
	}
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want) {
		t.Fatalf("%d datasets, want %d", len(all), len(want))
	}
	for _, d := range all {
		for k, v := range want[d.Name] {
			wl, m, _ := strings.Cut(k, " ")
			if got := figure(t, d, wl, m).Value; got != v {
				t.Errorf("%s %s = %v, want %v", d.Name, k, got, v)
			}
		}
		if d.Source == "" || d.Environment == "" || d.Env["mitigation_mode"] != d.Label {
			t.Errorf("%s: source, environment or mitigation_mode missing", d.Name)
		}
	}
	// The derived system times reproduce the published −22.25% and ≈16 s.
	on, _ := Get("study-wsl3-on")
	off, _ := Get("baseline:study-wsl3-off")
	a, b := figure(t, on, "go-build", "sys_s").Value, figure(t, off, "go-build", "sys_s").Value
	if pct := (b/a - 1) * 100; pct > -22.245 || pct < -22.255 {
		t.Errorf("sys_s change = %.3f%%, want −22.25%%", pct)
	}
	if saved := a - b; saved != 16 {
		t.Errorf("sys_s saved = %v s, want 16", saved)
	}
	if !figure(t, on, "go-build", "sys_s").Approx {
		t.Error("derived figure not marked approx")
	}
	// The study's two command lines differ by exactly these tokens.
	onRaw := on.Env["cmdline"].(map[string]any)["raw"].(string)
	offRaw := off.Env["cmdline"].(map[string]any)["raw"].(string)
	if offRaw != onRaw+" quiet loglevel=0 audit=0 mitigations=off vsyscall=none" || !strings.HasPrefix(onRaw, `initrd=\initrd.img `) {
		t.Errorf("command lines:\n%s\n%s", onRaw, offRaw)
	}
}

func TestGetUnknown(t *testing.T) {
	_, err := Get("baseline:nope")
	var ue *UnknownError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "baseline:study-wsl2-off, baseline:study-wsl2-on, baseline:study-wsl3-off, baseline:study-wsl3-on") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunDocument(t *testing.T) {
	d, err := Get("study-wsl3-on")
	if err != nil {
		t.Fatal(err)
	}
	r := d.Run()
	if r.ID != "baseline:study-wsl3-on" || r.Label != "on" || len(r.Results) != 4 {
		t.Fatalf("run = %+v", r)
	}
	m := r.Results[0].Metric("ops_per_sec")
	if m == nil || len(m.Samples) != 1 || m.Samples[0] != 5353135 || m.Better != run.Higher {
		t.Fatalf("syscall-basic ops_per_sec = %+v", m)
	}
}

func TestParseRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown field": `{"name":"x","bogus":1}`,
		"wrong name":    `{"name":"y"}`,
		"no value":      `{"name":"x","results":[{"workload":"w","metrics":[{"name":"m","unit":"s","better":"lower"}]}]}`,
		"bad better":    `{"name":"x","results":[{"workload":"w","metrics":[{"name":"m","unit":"s","better":"up","value":1}]}]}`,
	} {
		if _, err := parse("x.json", []byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestMatchesWorkloads: each published figure must be comparable with a
// run of the registered workload made with --suite study: the same
// parameters and the same metric name, unit and direction. go-build built
// the study's own backend (a directory nobody else has), so only its
// metrics are checked.
func TestMatchesWorkloads(t *testing.T) {
	reg := workload.Default()
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range all {
		for _, r := range d.Results {
			w, err := reg.Lookup(r.Workload)
			if err != nil {
				continue // not in this build's registry
			}
			info := w.Info()
			if r.Workload != "go-build" {
				p, err := workload.Resolve(info, workload.Study, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := run.ParamsKey(r.Params), run.ParamsKey(p.Map()); got != want {
					t.Errorf("%s %s: params %q, the study suite runs %q", d.Name, r.Workload, got, want)
				}
			}
			for _, m := range r.Metrics {
				spec, ok := metricSpec(info, m.Name)
				if !ok {
					t.Errorf("%s %s: the workload has no metric %s", d.Name, r.Workload, m.Name)
					continue
				}
				if spec.Unit != m.Unit || spec.Better != m.Better {
					t.Errorf("%s %s %s: %s/%s, the workload says %s/%s", d.Name, r.Workload, m.Name, m.Unit, m.Better, spec.Unit, spec.Better)
				}
				checked++
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d figures checked against the registry", checked)
	}
}

func metricSpec(info workload.Info, name string) (workload.MetricSpec, bool) {
	for _, m := range info.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return workload.MetricSpec{}, false
}
