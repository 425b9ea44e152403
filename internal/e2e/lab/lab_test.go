package labe2e

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/cli"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/e2e"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

// TestLab runs the real `sectax lab --plan leave-one-out` on the installed
// kernel under TCG: a probe boot makes the plan from the guest kernel's own
// vulnerability files, then on, off and no-spectre_v2 boot once each with
// sectax as /init measuring two tiny workloads. One lab, four boots, checks
// what the study and the attribution need (it replaces the separate
// end-to-end and leave-one-out tests, which booted on twice and probed
// once more):
//   - the command lines differ from on by exactly mitigations=off (off)
//     and spectre_v2=off (no-spectre_v2), each boot verified before it was
//     measured, spectre_v2 mitigated under on and not under either other;
//   - every run is stored with its lab and config blocks and both results;
//   - the matrix says the timings are emulated, shows the command-line
//     change, and says that the budget stopped adaptive repetition.
func TestLab(t *testing.T) {
	k, _ := e2e.Kernel(t)
	db := filepath.Join(t.TempDir(), "lab.db")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := cli.Main(ctx, []string{"lab", "--db", db, "--kernel", k.Path, "--accel", "tcg",
		"--plan", "leave-one-out", "--only-config", "off,no-spectre_v2", "--boots", "1", "--plan-seed", "3",
		"--suite", "quick", "--only", "syscall-basic,sched-pipe", "--runs", "2", "--warmup", "0",
		"--param", "syscall-basic.loops=2000", "--param", "sched-pipe.loops=200",
		"--memory", "512M", "--smp", "1", "--label", "e2e", "--target-ci", "1", "--budget", "1s"}, &stdout, &stderr)
	t.Logf("sectax lab: exit %d in %s\nstderr:\n%s\nstdout:\n%s", code, time.Since(start).Round(time.Second), stderr.String(), stdout.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	out := stdout.String()
	if !strings.Contains(stderr.String(), "plan leave-one-out for kernel "+k.Release+": ") {
		t.Errorf("no plan of the guest kernel on stderr")
	}
	if !strings.HasPrefix(out, compare.TCGHeadline+"\n") || !strings.Contains(out, "3 configurations") {
		t.Errorf("the matrix is not the TCG one of on, off and no-spectre_v2")
	}
	if !strings.Contains(out, "off vs on: command line +mitigations=off;") {
		t.Errorf("the matrix does not show the command-line change")
	}
	// Adaptive repetition: one boot a side has no interval with the boot
	// as the unit, and another round would overrun the budget of 1s.
	if !strings.Contains(out, "adaptive: no-spectre_v2 against on: no interval with the boot as the unit yet after 1 boot: stopped by the budget (--budget 1s") {
		t.Errorf("the matrix does not say that the budget stopped adaptive repetition")
	}

	s, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(cfg string) (*run.Run, compare.Side) {
		label := lab.Label("e2e", k.Release, cfg)
		ids, _, err := s.Resolve(ctx, label)
		if err != nil || len(ids) != 1 {
			t.Fatalf("%s: %v %v", label, ids, err)
		}
		r, err := s.Get(ctx, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if r.Lab == nil || r.Lab.Accel != lab.AccelTCG || r.Lab.CPUModel != lab.TCGCPU || r.Lab.KernelSHA256 != k.SHA256 || r.Lab.LabParams != lab.LabParams {
			t.Errorf("%s: lab block %+v", label, r.Lab)
		}
		if r.Config == nil || r.Config.Name != cfg || r.Config.Verification == nil || !r.Config.Verification.OK {
			t.Fatalf("%s: config block %+v", label, r.Config)
		}
		if len(r.Results) != 2 {
			t.Errorf("%s: %d results", label, len(r.Results))
		}
		env, _ := s.Env(ctx, ids[0])
		return r, compare.RunsSide(label, compare.KindLabel, []*run.Run{r}, []map[string]any{env})
	}
	spectreV2 := func(r *run.Run) string {
		for _, v := range r.Env.Vulnerabilities {
			if v.Name == "spectre_v2" {
				return string(v.State)
			}
		}
		t.Fatalf("%s: no spectre_v2 file", r.Label)
		return ""
	}
	onRun, on := get("on")
	offRun, off := get("off")
	nsRun, _ := get("no-spectre_v2")

	rep, err := pairOf(compare.CompareSides([]compare.Side{on, off}, compare.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Env.CmdlineAdded, []string{"mitigations=off"}) || len(rep.Env.CmdlineRemoved) != 0 {
		t.Errorf("command-line diff +%v -%v, want exactly +mitigations=off", rep.Env.CmdlineAdded, rep.Env.CmdlineRemoved)
	}
	var changed []string
	for _, v := range rep.Env.Vulnerabilities {
		changed = append(changed, v.String())
	}
	t.Logf("vulnerability files changed by mitigations=off: %s", strings.Join(changed, "; "))
	if !slices.ContainsFunc(rep.Env.Vulnerabilities, func(v compare.VulnChange) bool { return v.Name == "spectre_v2" }) {
		t.Errorf("spectre_v2 did not change; changed: %v", changed)
	}
	if _, tcg, mixed := compare.Accelerators(append(on.Runs, off.Runs...)); !tcg || mixed {
		t.Errorf("Accelerators: tcg=%v mixed=%v", tcg, mixed)
	}

	if s := spectreV2(onRun); s != "mitigated" {
		t.Errorf("spectre_v2 under on: %s, want mitigated", s)
	}
	for _, r := range []*run.Run{offRun, nsRun} {
		if s := spectreV2(r); s == "mitigated" {
			t.Errorf("spectre_v2 under %s: %s, want not mitigated", r.Config.Name, s)
		}
	}
	v := nsRun.Config.Verification
	if !slices.Contains(v.ExpectedOff, "spectre_v2") || !strings.Contains(" "+v.Cmdline+" ", " spectre_v2=off ") {
		t.Errorf("no-spectre_v2 verification %+v", v)
	}
}

// pairOf is the one report of a comparison of two sides.
func pairOf(c *compare.Comparison, err error) (*compare.Report, error) {
	if err != nil {
		return nil, err
	}
	return c.Comparisons[0], nil
}
