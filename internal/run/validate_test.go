package run

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/sysinfo"
)

func validRun() *Run {
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	return &Run{
		Schema: Schema, ID: "20261130T060000-abcdef", Label: "on", Started: t0, Finished: t0.Add(time.Minute),
		Status: StatusComplete, Suite: "quick", Engine: "native", ToolVersion: "0.1.0", Repetitions: 6, Warmup: 1,
		Results: []Result{{Workload: "sched-pipe", Params: map[string]any{"loops": float64(100), "mode": "process"},
			Metrics: []Metric{
				{Name: "usecs_per_op", Unit: "µs/op", Better: Lower, Samples: []float64{8.1, 8.2}},
				{Name: "nivcsw", Unit: "switches", Better: Lower, Samples: []float64{0, 3}},
			},
			Failures: []string{"measure 3: perf said:\n  line two"}}},
	}
}

// TestValidateRejects: every hostile document the issue found accepted is
// refused, naming the field.
func TestValidateRejects(t *testing.T) {
	if err := validRun().Validate(); err != nil {
		t.Fatalf("valid run refused: %v", err)
	}
	long := strings.Repeat("x", 129)
	for _, c := range []struct {
		name, field, msg string
		edit             func(r *Run)
	}{
		{"schema", "schema", `"sectax.run/v9" is not`, func(r *Run) { r.Schema = "sectax.run/v9" }},
		{"newline id", "id", "control character U+000A", func(r *Run) { r.ID = "a\nb" }},
		{"escape id", "id", "control character U+001B", func(r *Run) { r.ID = "x\x1b[2Jy" }},
		{"bell label", "label", "control character U+0007", func(r *Run) { r.Label = "on\a" }},
		{"newline label", "label", "control character", func(r *Run) { r.Label = "on\n# Injected" }},
		{"baseline id", "id", `starts with "baseline:"`, func(r *Run) { r.ID = "baseline:study-wsl3-on" }},
		{"baseline label", "label", `starts with "baseline:"`, func(r *Run) { r.Label = "baseline:x" }},
		{"long id", "id", "129 bytes long, more than the limit of 128", func(r *Run) { r.ID = long }},
		{"long label", "label", "more than the limit of 128", func(r *Run) { r.Label = long }},
		{"bad utf8", "label", "not valid UTF-8", func(r *Run) { r.Label = "\xff" }},
		{"padded label", "label", "padded", func(r *Run) { r.Label = " on" }},
		{"zero primary", "results[0].metrics[0].samples[1]", "0 in the primary metric", func(r *Run) { r.Results[0].Metrics[0].Samples[1] = 0 }},
		{"negative", "results[0].metrics[1].samples[0]", "negative", func(r *Run) { r.Results[0].Metrics[1].Samples[0] = -1 }},
		{"inf", "results[0].metrics[0].samples[0]", "not a finite number", func(r *Run) { r.Results[0].Metrics[0].Samples[0] = math.Inf(1) }},
		{"nan", "results[0].metrics[0].samples[0]", "not a finite number", func(r *Run) { r.Results[0].Metrics[0].Samples[0] = math.NaN() }},
		{"runs -5", "runs", "-5: must be at least 1", func(r *Run) { r.Repetitions = -5 }},
		{"runs 0", "runs", "must be at least 1", func(r *Run) { r.Repetitions = 0 }},
		{"warmup", "warmup", "must not be negative", func(r *Run) { r.Warmup = -1 }},
		{"finished first", "finished", "is before started", func(r *Run) { r.Finished = r.Started.Add(-time.Hour) }},
		{"finished missing", "finished", "missing, but the run is complete", func(r *Run) { r.Finished = time.Time{} }},
		{"started missing", "started", "missing", func(r *Run) { r.Started = time.Time{} }},
		{"status", "status", "is not running", func(r *Run) { r.Status = "done" }},
		{"better", "results[0].metrics[0].better", "not lower or higher", func(r *Run) { r.Results[0].Metrics[0].Better = "up" }},
		{"dup metric", "results[0].metrics[1].name", "appears twice", func(r *Run) { r.Results[0].Metrics[1].Name = "usecs_per_op" }},
		{"unit escape", "results[0].metrics[0].unit", "control character", func(r *Run) { r.Results[0].Metrics[0].Unit = "s\x1b]8;;http://x\a" }},
		{"workload", "results[0].workload", "missing", func(r *Run) { r.Results[0].Workload = "" }},
		{"too many samples", "results[0].metrics[1].samples", "more than the limit of 1000000", func(r *Run) { r.Results[0].Metrics[1].Samples = make([]float64, MaxSamples+1) }},
		{"too many results", "results", "more than the limit of 1000", func(r *Run) { r.Results = make([]Result, MaxResults+1) }},
		{"param object", "results[0].params.mode", "must be a string, a number or a boolean", func(r *Run) { r.Results[0].Params["mode"] = map[string]any{} }},
		{"config name", "config.name", "control character", func(r *Run) { r.Config = &Config{Name: "off\n"} }},
		{"config param", "config.params[0]", "control character", func(r *Run) { r.Config = &Config{Name: "off", Params: []string{"mitigations=off\x1b"}} }},
		{"failure escape", "results[0].failures[0]", "control character U+001B", func(r *Run) { r.Results[0].Failures[0] = "\x1b[31mred" }},
	} {
		r := validRun()
		c.edit(r)
		err := r.Validate()
		ie, ok := err.(*InvalidError)
		if !ok || ie.Field != c.field || !strings.Contains(ie.Msg, c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v; want field %s and %q on one line", c.name, err, c.field, c.msg)
		}
	}
}

// TestValidateAccepts: what real runs hold passes: a running run without
// a finish time, an empty label, zero counters in secondary metrics,
// newlines in failure text.
func TestValidateAccepts(t *testing.T) {
	r := validRun()
	r.Status, r.Finished, r.Label = StatusRunning, time.Time{}, ""
	r.Results[0].Metrics[0].Samples = nil
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestValidateEnv: the snapshot of every fixture machine passes (sectax's
// own environments are valid), and a control character in any text of
// the environment — hostname, kernel, command line, os-release, a
// vulnerability line or one of its fields — is refused in one line that
// names the field.
func TestValidateEnv(t *testing.T) {
	roots, _ := filepath.Glob("../sysinfo/testdata/*/proc")
	if len(roots) < 5 {
		t.Fatalf("fixtures: %v", roots)
	}
	for _, p := range roots {
		snap, err := sysinfo.Collect(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		r := validRun()
		r.Env = snap
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", filepath.Dir(p), err)
		}
	}
	base, err := sysinfo.Collect("../sysinfo/testdata/wsl2-intel-on")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		field, msg string
		edit       func(s *sysinfo.Snapshot)
	}{
		{"env.hostname", "U+001B", func(s *sysinfo.Snapshot) { s.Hostname = "box\x1b]52;c;cHduZWQ=\a" }},
		{"env.kernel.release", "U+009B", func(s *sysinfo.Snapshot) { s.Kernel.Release = "6.6\u009b2J" }},
		{"env.cmdline.raw", "U+0000", func(s *sysinfo.Snapshot) { s.Cmdline.Raw = "quiet\x00mitigations=off" }},
		{"env.os_release", "U+000D", func(s *sysinfo.Snapshot) { s.OSRelease = "Debian\rFORGED" }},
		{"env.boot_id", "U+000A", func(s *sysinfo.Snapshot) { s.BootID = "a\nb" }},
		{"env.vulnerabilities[0].raw", "U+001B", func(s *sysinfo.Snapshot) { s.Vulnerabilities[0].Raw = "Mitigation: \x1b]0;t\a" }},
		{"env.vulnerabilities[0].fields", "key", func(s *sysinfo.Snapshot) { s.Vulnerabilities[0].Fields = map[string]string{"a\x1b": "b"} }},
		{"env.cpu.model_name", "U+0085", func(s *sysinfo.Snapshot) { s.CPU.ModelName = "CPU\u0085" }},
		{"env.hostname", "bidirectional control U+202E", func(s *sysinfo.Snapshot) { s.Hostname = "lab\u202e1" }},
		{"env.kernel.version", "U+2028", func(s *sysinfo.Snapshot) { s.Kernel.Version = "Linux\u2028x" }},
	} {
		snap := *base
		snap.Vulnerabilities = slices.Clone(base.Vulnerabilities)
		c.edit(&snap)
		r := validRun()
		r.Env = &snap
		err := r.Validate()
		ie, ok := err.(*InvalidError)
		if !ok || !strings.HasPrefix(ie.Field, c.field) || !strings.Contains(ie.Msg, c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v; want field %s and %q on one line", c.field, err, c.field, c.msg)
		}
	}
}

// TestValidateLoad: a load record is optional; its numbers are finite and
// non-negative and its counters do not run backwards; StealPct is the
// growth of steal over that of the CPU time.
func TestValidateLoad(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	at := time.Date(2026, 12, 7, 14, 0, 0, 0, time.UTC)
	good := &Load{Start: &sysinfo.Load{At: at, Load1: f(0.5), CPUSeconds: f(100), StealSeconds: f(1)},
		End: &sysinfo.Load{At: at, Load1: f(1), CPUSeconds: f(200), StealSeconds: f(6)}}
	r := validRun()
	r.Load = good
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if pct, ok := good.StealPct(); !ok || pct != 5 {
		t.Errorf("StealPct = %v, %v; want 5", pct, ok)
	}
	for _, bad := range []*Load{
		{Start: &sysinfo.Load{Load1: f(-1)}},
		{End: &sysinfo.Load{CPUSeconds: f(math.Inf(1))}},
		{Start: &sysinfo.Load{OtherSectax: -1}},
		{Start: &sysinfo.Load{CPUSeconds: f(200), StealSeconds: f(1)}, End: &sysinfo.Load{CPUSeconds: f(100), StealSeconds: f(1)}},
	} {
		r := validRun()
		r.Load = bad
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "load.") {
			t.Errorf("load %+v accepted (%v)", bad, err)
		}
	}
	if _, ok := (&Load{Start: good.Start}).StealPct(); ok {
		t.Error("StealPct without an end reading")
	}
}
