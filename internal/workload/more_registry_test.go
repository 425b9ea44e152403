package workload

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// The workloads of issue 5 are registered, declare what they stress and
// resolve in every suite.
func TestIssue5Registered(t *testing.T) {
	reg := Default()
	for _, id := range []string{"go-build", "spawn", "file-churn", "cmd", "ctl-user", "ctl-vdso"} {
		w, err := reg.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		in := w.Info()
		if in.Title == "" || in.Validate() != nil || len(in.Metrics) == 0 {
			t.Errorf("%s: incomplete Info %+v", id, in)
		}
		for _, m := range in.Metrics {
			if m.Better != "lower" && m.Better != "higher" || m.Unit == "" || m.Help == "" {
				t.Errorf("%s: metric %+v", id, m)
			}
		}
		for _, s := range Suites {
			if _, err := Resolve(in, s, nil); err != nil {
				t.Errorf("%s in %s: %v", id, s, err)
			}
		}
		for _, p := range in.Params {
			if p.Help == "" || (p.IsInt() && (p.Min > p.Max || p.Default.(int64) < p.Min)) {
				t.Errorf("%s.%s: %+v", id, p.Key, p)
			}
			if !p.IsInt() && !p.Free && len(p.Choices) == 0 {
				t.Errorf("%s.%s: a string parameter needs Choices or Free", id, p.Key)
			}
		}
	}
	// Suites skip cmd without a command; the others need nothing.
	for _, w := range reg.All() {
		a, ok := w.(Availability)
		if !ok || w.Info().ID == "go-build" {
			continue
		}
		p, _ := Resolve(w.Info(), Quick, nil)
		err := a.Available(p)
		if (err != nil) != (w.Info().ID == "cmd") {
			t.Errorf("%s: Available = %v", w.Info().ID, err)
		}
		if line := "  skipped " + w.Info().ID + ": " + fmt.Sprint(err); err != nil && (strings.Contains(line, "\n") || utf8.RuneCountInString(line) > 100) {
			t.Errorf("%s: the note %q is not one line of at most 100 columns", w.Info().ID, line)
		}
	}
}

// TestPerfBenchIDs: crosscheck's default is the workloads perf bench has
// (perf bench syscall basic, sched pipe, sched messaging), in registry
// order, and no other.
func TestPerfBenchIDs(t *testing.T) {
	got := Default().PerfBenchIDs()
	if want := "[syscall-basic sched-pipe sched-messaging]"; fmt.Sprint(got) != want {
		t.Errorf("PerfBenchIDs() = %v, want %s", got, want)
	}
}
