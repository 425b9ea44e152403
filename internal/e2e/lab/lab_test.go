package labe2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/cli"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/e2e"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/vm"
)

// labRun is the one real lab of this package, shared by TestLab and
// TestVectors: `sectax lab --plan vectors` on the installed kernel under
// TCG, a probe boot that makes the plan from the guest kernel's own
// vulnerability files, then one boot of each configuration (on, off and
// the single vectors: on Debian's 6.1 no-user_kernel), sectax as /init
// measuring two tiny workloads, adaptive repetition stopped by a budget of
// a second. (Both tests booted their own lab, on and off twice and the
// probe twice; they now check one.)
type labRun struct {
	db             string
	k              vm.KernelImage
	code           int
	stdout, stderr string
}

var shared struct {
	once sync.Once
	dir  string
	run  labRun
}

// Five repetitions a boot: the smallest count at which the 95% interval of
// a ratio exists with one boot a side (the repetition as the unit).
func sharedLab(t *testing.T) labRun {
	t.Helper()
	k, _ := e2e.Kernel(t)
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "sectax-e2e-lab-")
		if err != nil {
			shared.run.stderr = err.Error()
			shared.run.code = -1
			return
		}
		shared.dir = dir
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		db := filepath.Join(dir, "lab.db")
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := cli.Main(ctx, []string{"lab", "--db", db, "--kernel", k.Path, "--accel", "tcg",
			"--plan", "vectors", "--boots", "1", "--plan-seed", "5",
			"--suite", "quick", "--only", "syscall-basic,sched-pipe", "--runs", "5", "--warmup", "0",
			"--param", "syscall-basic.loops=2000", "--param", "sched-pipe.loops=200",
			"--memory", "512M", "--smp", "1", "--label", "e2e", "--target-ci", "1", "--budget", "1s"}, &stdout, &stderr)
		shared.run = labRun{db: db, k: k, code: code, stdout: stdout.String(), stderr: stderr.String()}
		t.Logf("sectax lab: exit %d in %s", code, time.Since(start).Round(time.Second))
	})
	r := shared.run
	if r.code != 0 {
		t.Fatalf("sectax lab: exit %d\nstderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	return r
}

// TestLab checks the shared lab (labRun) for what the study and the
// attribution need:
//   - the command lines differ from on by exactly mitigations=off (off),
//     spectre_v2 changed by it, each configuration's parameters on its
//     command line, each boot verified before it was measured; every bug
//     a configuration turns off that on mitigates is not mitigated under
//     it;
//   - every run is stored with its lab and config blocks and both results;
//   - the matrix says the timings are emulated, shows the command-line
//     change, and says that the budget stopped adaptive repetition.
func TestLab(t *testing.T) {
	lr := sharedLab(t)
	k, db := lr.k, lr.db
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Logf("stderr:\n%s\nstdout:\n%s", lr.stderr, lr.stdout)
	out := lr.stdout
	if !strings.Contains(lr.stderr, "plan vectors for kernel "+k.Release+": ") {
		t.Errorf("no plan of the guest kernel on stderr")
	}
	if !strings.HasPrefix(out, compare.TCGHeadline+"\n") || !strings.Contains(out, " configurations") {
		t.Errorf("the matrix is not the TCG one of the plan's configurations")
	}
	if m := regexp.MustCompile(`  ([B-Z]) = off(  |\n)`).FindStringSubmatch(out); m == nil || !strings.Contains(out, m[1]+" vs A: command line +mitigations=off;") {
		t.Errorf("the matrix does not show the command-line change")
	}
	// Adaptive repetition: one boot a side has no interval with the boot
	// as the unit, and another round would overrun the budget of 1s.
	if !strings.Contains(testutil.Unwrap(out), " against on: no interval with the boot as the unit yet after 1 boot: stopped by the budget (--budget 1s") {
		t.Errorf("the matrix does not say that the budget stopped adaptive repetition")
	}

	s, err := storetest.Ref(t, db).Open(ctx, store.Options{})
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
		if r.Lab == nil || r.Lab.Accel != vm.AccelTCG || r.Lab.CPUModel != vm.TCGCPU || r.Lab.KernelSHA256 != k.SHA256 || r.Lab.LabParams != vm.LabParams {
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
	onRun, on := get("on")
	_, off := get("off")

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

	// Every configuration but on: its parameters on the command line, and
	// each bug it turns off mitigated under on and not under it.
	configs := map[string]bool{}
	stored, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prefix := lab.Label("e2e", k.Release, "")
	for _, sum := range stored {
		if cfg, ok := strings.CutPrefix(sum.Label, prefix); ok {
			configs[cfg] = true
		}
	}
	if !configs["on"] || !configs["off"] || len(configs) < 3 {
		t.Fatalf("configurations %v: want on, off and one more", configs)
	}
	for cfg := range configs {
		if cfg == "on" {
			continue
		}
		r, _ := get(cfg)
		v := r.Config.Verification
		if len(v.ExpectedOff) == 0 {
			t.Errorf("%s: verification %+v names no bug the configuration turns off", cfg, v)
		}
		for _, p := range r.Config.Params {
			if !strings.Contains(" "+v.Cmdline+" ", " "+p+" ") {
				t.Errorf("%s: parameter %s not on the command line %q", cfg, p, v.Cmdline)
			}
		}
		// The emulated CPU has no microcode for some (mds: vulnerable under
		// on already); what on mitigates, the configuration must not.
		turned := 0
		for _, bug := range v.ExpectedOff {
			if vulnState(t, onRun, bug) != "mitigated" {
				continue
			}
			turned++
			if st := vulnState(t, r, bug); st == "mitigated" {
				t.Errorf("%s under %s: %s, want not mitigated", bug, cfg, st)
			}
		}
		if turned == 0 {
			t.Errorf("%s: none of the bugs it turns off (%v) is mitigated under on", cfg, v.ExpectedOff)
		}
	}
}

// vulnState is the state of bug's vulnerability file in r's environment.
func vulnState(t *testing.T, r *run.Run, bug string) string {
	t.Helper()
	for _, v := range r.Env.Vulnerabilities {
		if v.Name == bug {
			return string(v.State)
		}
	}
	t.Fatalf("%s: no %s file", r.Label, bug)
	return ""
}

// pairOf is the one report of a comparison of two sides.
func pairOf(c *compare.Comparison, err error) (*compare.Report, error) {
	if err != nil {
		return nil, err
	}
	return c.Comparisons[0], nil
}
