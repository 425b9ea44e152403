package labe2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/cli"
	"github.com/sectax/sectax/internal/e2e"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/vm"
)

// TestCorpusBoot is `sectax corpus boot` (docs/corpus.md) end to end on
// the installed kernel under TCG: two boots of one CPU model (the default
// line, then mitigations=off), started at the kernel's PVH entry, are recorded with their vulnerability files,
// /proc/cmdline and SMT state; a second call with the same limit resumes,
// booting only what the file lacks.
func TestCorpusBoot(t *testing.T) {
	t.Parallel() // one TCG vCPU each: two boots share the two cores
	k, _ := e2e.Kernel(t)
	out := filepath.Join(t.TempDir(), "boots.jsonl.gz")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	boot := func(limit string, more ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append([]string{"corpus", "boot", "--kernel", k.Path, "--out", out, "--cpu", "Skylake-Client-v1", "--threads", "2", "--limit", limit, "--parallel", "1"}, more...)
		code := cli.Main(ctx, args, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("sectax corpus boot: exit %d\nstderr:\n%s", code, stderr.String())
		}
		return stderr.String()
	}
	read := func() []mitigation.Observation {
		t.Helper()
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		obs, err := mitigation.ReadObservations(f)
		if err != nil {
			t.Fatal(err)
		}
		return obs
	}
	boot("1")
	obs := read()
	if len(obs) != 1 || obs[0].Params != "" {
		t.Fatalf("first call: %+v, want the default boot alone", obs)
	}
	boot("1", "--line", "mitigations=off") // the corpus's own order puts the per-bug lines first
	obs = read()
	if len(obs) != 2 {
		t.Fatalf("second call: %d boots, want 2 (the default one kept, one new)", len(obs))
	}
	for _, o := range obs {
		if o.Release != k.Release || o.Image != k.SHA256 || o.CPUModel != "Skylake-Client-v1" || o.Accel != "tcg" || o.Vendor != "GenuineIntel" || o.Entry != vm.EntryPVH {
			t.Errorf("boot %q: %+v", o.Params, o)
		}
		if !strings.HasSuffix(o.Cmdline, o.Params) || !strings.Contains(o.Cmdline, "console=ttyS0") {
			t.Errorf("boot %q: /proc/cmdline %q", o.Params, o.Cmdline)
		}
		if o.SMTControl != "on" || o.SMTActive == nil || !*o.SMTActive {
			t.Errorf("boot %q: SMT %q %v, want on and active (two sibling vCPUs)", o.Params, o.SMTControl, o.SMTActive)
		}
		if len(o.Files) < 10 {
			t.Errorf("boot %q: %d vulnerability files", o.Params, len(o.Files))
		}
	}
	// The second boot is the line asked for: mitigations=off.
	var off mitigation.Observation
	for _, o := range obs {
		if o.Params == "mitigations=off" {
			off = o
		}
	}
	if off.Files["meltdown"] != "Vulnerable" {
		t.Errorf("mitigations=off on Skylake-Client: meltdown %q, want Vulnerable", off.Files["meltdown"])
	}
}
