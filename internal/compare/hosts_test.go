package compare

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/run"
)

func hostEnv(mode, host, boot string) map[string]any {
	e := envOn()
	if mode == "off" {
		e = envOff()
	}
	e["hostname"], e["boot_id"] = host, boot
	return e
}

// TestHostIsTheUnit: a side that spans several hosts has one sample per
// host (the median of its repetitions), and a host on one side only is a
// confounder.
func TestHostIsTheUnit(t *testing.T) {
	mk := func(id, label string, base float64) *run.Run {
		return mkRun(id, label, res("syscall-basic", nil, lower("usecs_per_op", base, base*1.01, base*0.99)))
	}
	on := RunsSide("label:on", KindLabel,
		[]*run.Run{mk("a-on", "on", 1.2), mk("b-on", "on", 2.4), mk("b-on2", "on", 2.5), mk("c-on", "on", 3.6)},
		[]map[string]any{hostEnv("on", "a", "a1"), hostEnv("on", "b", "b1"), hostEnv("on", "b", "b2"), hostEnv("on", "c", "c1")})
	off := RunsSide("label:off", KindLabel,
		[]*run.Run{mk("a-off", "off", 1), mk("b-off", "off", 2), mk("c-off", "off", 3)},
		[]map[string]any{hostEnv("off", "a", "a3"), hostEnv("off", "b", "b3"), hostEnv("off", "c", "c3")})
	rep, err := pair(on, off, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.A.Unit != "host" || rep.B.Unit != "host" {
		t.Fatalf("units %q %q, want host", rep.A.Unit, rep.B.Unit)
	}
	m := rep.Workloads[0].Metrics[0]
	if m.A.N != 3 || m.B.N != 3 || m.B.Center != 2 {
		t.Fatalf("A n=%d, B n=%d median %v: want one sample per host", m.A.N, m.B.N, m.B.Center)
	}
	if len(m.RawA) != 12 {
		t.Fatalf("raw samples %d, want every repetition", len(m.RawA))
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "label:on spans 3 hosts: its samples are per-host medians") {
		t.Fatalf("notes %q", rep.Notes)
	}
	for _, c := range rep.Env.Confounders {
		if c.Path == "hostname" {
			t.Fatalf("same hosts on both sides reported as a confounder: %+v", c)
		}
	}
	// Host c measured only with mitigations on: a confounder.
	off.Runs, off.Envs = off.Runs[:2], off.Envs[:2]
	rep, err = pair(on, off, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range rep.Env.Confounders {
		found = found || c.Path == "hostname" && c.A == "a | b | c" && c.B == "a | b"
	}
	if !found {
		t.Fatalf("confounders %+v lack the host", rep.Env.Confounders)
	}
}
