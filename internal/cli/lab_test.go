package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/testutil"
)

// labKernelForTest is an installed kernel image with its modules, or a
// skip (a failure under CI=true, where .ci/run installs QEMU and
// linux-image-amd64).
func labKernelForTest(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		testutil.Need(t, "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)")
	}
	exe, _ := os.Executable()
	if err := lab.CheckStatic(exe); err != nil {
		testutil.Need(t, "the test binary is not static: run the lab test with CGO_ENABLED=0")
	}
	imgs, _ := filepath.Glob("/boot/vmlinuz-*")
	sort.Sort(sort.Reverse(sort.StringSlice(imgs)))
	for _, p := range imgs {
		if k, err := lab.ReadKernel(p); err == nil && k.Release != "" {
			if _, err := os.Stat("/lib/modules/" + k.Release); err == nil {
				return p
			}
		}
	}
	testutil.Need(t, "no /boot/vmlinuz-* with its /lib/modules (apt-get install linux-image-amd64)")
	return ""
}

// TestLabEndToEnd boots the installed kernel twice under TCG, on and
// mitigations=off, with sectax (this test binary) as /init measuring two
// tiny workloads, and checks what the study needs: the command lines
// differ by exactly mitigations=off, spectre_v2 changes state, both runs
// are stored with their lab and config blocks, and the matrix says the
// timings are emulated.
func TestLabEndToEnd(t *testing.T) {
	kernel := labKernelForTest(t)
	db := filepath.Join(t.TempDir(), "lab.db")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := Main(ctx, []string{"lab", "--db", db, "--kernel", kernel, "--accel", "tcg",
		"--config", "on", "--config", "off=mitigations=off", "--boots", "1", "--plan-seed", "3",
		"--suite", "quick", "--only", "syscall-basic,sched-pipe", "--runs", "2", "--warmup", "0",
		"--param", "syscall-basic.loops=2000", "--param", "sched-pipe.loops=200",
		"--memory", "512M", "--smp", "1", "--label", "e2e"}, &stdout, &stderr)
	t.Logf("sectax lab: exit %d in %s\nstderr:\n%s\nstdout:\n%s", code, time.Since(start).Round(time.Second), stderr.String(), stdout.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	out := stdout.String()
	if !strings.HasPrefix(out, compare.TCGHeadline+"\n") {
		t.Errorf("the matrix does not start with %q", compare.TCGHeadline)
	}
	if !strings.Contains(out, "off vs on: command line +mitigations=off;") {
		t.Errorf("the matrix does not show the command-line change")
	}

	s, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k, _ := lab.ReadKernel(kernel)
	side := func(cfg string) compare.Side {
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
			t.Errorf("%s: config block %+v", label, r.Config)
		}
		if len(r.Results) != 2 {
			t.Errorf("%s: %d results", label, len(r.Results))
		}
		env, _ := s.Env(ctx, ids[0])
		return compare.RunsSide(label, compare.KindLabel, []*run.Run{r}, []map[string]any{env})
	}
	on, off := side("on"), side("off")
	rep, err := compare.Compare(on, off, compare.Options{})
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
	if !slices.ContainsFunc(rep.Env.Vulnerabilities, func(v compare.VulnChange) bool { return v.Name == "spectre_v2" }) {
		t.Errorf("spectre_v2 did not change; changed: %v", changed)
	}
	t.Logf("vulnerability files changed: %s", strings.Join(changed, "; "))
	if _, tcg, mixed := compare.Accelerators(append(on.Runs, off.Runs...)); !tcg || mixed {
		t.Errorf("Accelerators: tcg=%v mixed=%v", tcg, mixed)
	}
}

// TestLabUsage checks the mistakes sectax lab refuses before booting
// anything: one line, exit 2 (1 for a missing kernel image of the running
// system, which names the package to install).
func TestLabUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	img := filepath.Join(t.TempDir(), "vmlinuz-x")
	os.WriteFile(img, []byte("not a kernel"), 0o644)
	fifo := filepath.Join(t.TempDir(), "fifo")
	syscall.Mkfifo(fifo, 0o600)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--accel", "xen"}, 2, `--accel "xen" is not accepted`},
		{[]string{"--config", "off=", "--kernel", img}, 2, "adds no parameter"},
		{[]string{"--config", "off"}, 2, "the plan needs on"},
		{[]string{"--boots", "0"}, 2, "--boots must be at least 1"},
		{[]string{"--cpus", "0"}, 2, "--smp"},
		{[]string{"--memory", "1T"}, 2, "--memory"},
		{[]string{"--only", "nosuch"}, 2, "nosuch"},
		{[]string{"--kernel", filepath.Join(t.TempDir(), "missing")}, 2, "--kernel"},
		// A device that never ends and a FIFO without a writer are refused
		// at once, not hashed forever or waited on.
		{[]string{"--kernel", "/dev/zero"}, 2, "/dev/zero is a character device"},
		{[]string{"--kernel", fifo}, 2, "is a FIFO"},
		{[]string{"--modules", filepath.Join(t.TempDir(), "missing"), "--kernel", img}, 2, "--modules"},
		{[]string{"--plan", "leave-one-out", "--config", "on"}, 2, "--plan and --config are mutually exclusive"},
		{[]string{"--plan", "all"}, 2, `--plan "all" is not accepted (accepted: leave-one-out, cumulative, study)`},
		{[]string{"--only-config", "no-spectre_v2"}, 2, "--only-config selects among the configurations of --plan"},
		{[]string{"--plan", "study", "--kernel", img, "--kernel", img}, 2, "--plan takes one --kernel"},
		{[]string{"--budget", "1h"}, 2, "--budget bounds adaptive repetition: give --target-ci PCT too"},
		{[]string{"--target-ci", "2"}, 2, "--target-ci needs --budget"},
		{[]string{"--target-ci", "-1", "--budget", "1h"}, 2, "--target-ci -1: give a half-width"},
	} {
		args := append([]string{"lab", "--db", db}, tc.args...)
		_, errOut, code := sectax(t, fixedDeps(nil), args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q on one line", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestLabGuestRefusesUnverifiedBoot boots a guest told to measure
// configuration off on a command line without mitigations=off: the guest
// must refuse to measure and say why.
func TestLabGuestRefusesUnverifiedBoot(t *testing.T) {
	kernel := labKernelForTest(t)
	exe, _ := os.Executable()
	k, _ := lab.ReadKernel(kernel)
	input, _ := json.Marshal(lab.MeasureInput{RunID: "20261201T000000-000000", Label: "x-off", Config: config.Off,
		Plan: []config.Config{config.On, config.Off}, Suite: "quick", Only: []string{"syscall-basic"}, Runs: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := lab.Boot(ctx, lab.BootOptions{
		QEMU: lab.QEMU{Accel: lab.AccelTCG, CPU: lab.TCGCPU, MemoryMiB: 512, SMP: 1, Kernel: kernel,
			Append: config.On.Cmdline(lab.LabParams, []config.Config{config.On, config.Off})},
		Initramfs: &lab.InitramfsOptions{Init: exe, ModulesDir: "/lib/modules/" + k.Release,
			Task: lab.Task{Name: lab.MeasureTask, Input: input}},
	})
	if !errors.Is(err, lab.ErrGuest) || !errors.Is(err, lab.ErrNotVerified) || !strings.Contains(err.Error(), "does not verify as configuration off") ||
		!strings.Contains(err.Error(), "mitigations=off is not on the command line") {
		t.Fatalf("err = %v", err)
	}
	if res.Result != nil {
		t.Errorf("the guest sent a result for a boot that did not verify")
	}
}

// TestCompareRefusesMixedAccelerators: runs measured under KVM and under
// TCG are not compared (exit 2, one line naming each side's accelerator
// and the fix); runs all under TCG compare with the TCG headline first.
func TestCompareRefusesMixedAccelerators(t *testing.T) {
	e := newCLIEnv(t)
	raw, err := os.ReadFile("testdata/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, accel func(label string) string) string {
		var out bytes.Buffer
		dec := json.NewDecoder(bytes.NewReader(raw))
		enc := json.NewEncoder(&out)
		for dec.More() {
			var r map[string]any
			if err := dec.Decode(&r); err != nil {
				t.Fatal(err)
			}
			label, _ := r["label"].(string)
			r["id"] = r["id"].(string) + "-" + name
			r["label"] = label + "-" + name
			if a := accel(label); a != "" {
				// A lab block as sectax lab writes it (import checks it),
				// with the accelerator under test.
				lab := map[string]any{"qemu_version": "QEMU emulator version 7.2.22", "accel": a, "cpu_model": "Skylake-Client-v1",
					"memory_mib": 512, "vcpus": 1, "kernel": "6.1.0-57-amd64", "kernel_image": "/boot/vmlinuz-6.1.0-57-amd64",
					"kernel_sha256": strings.Repeat("ab", 32), "boot": 1, "boots": 1}
				env, _ := r["env"].(map[string]any)
				cmdline, _ := env["cmdline"].(map[string]any)
				r["lab"] = lab
				r["config"] = map[string]any{"name": "on", "params": []string{},
					"verification": map[string]any{"ok": true, "boot_id": env["boot_id"], "cmdline": cmdline["raw"]}}
			}
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(e.dir, name+".json")
		if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mixed := write("mixed", func(label string) string {
		if label == "on" {
			return "kvm"
		}
		return "tcg"
	})
	tcg := write("tcg", func(string) string { return "tcg" })
	for _, p := range []string{mixed, tcg} {
		if code, _, errOut := e.run("import", p); code != 0 {
			t.Fatalf("import %s: exit %d: %s", p, code, errOut)
		}
	}
	code, _, errOut := e.run("compare", "on-mixed", "off-mixed")
	if code != 2 || !strings.Contains(errOut, "different accelerators (on-mixed kvm; off-mixed tcg;") ||
		!strings.Contains(errOut, "compare runs measured the same way") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("kvm against tcg: exit %d, stderr %q; want exit 2 naming both accelerators and the fix", code, errOut)
	}
	code, out, errOut := e.run("compare", "on-tcg", "off-tcg")
	if code != 0 || !strings.HasPrefix(out, compare.TCGHeadline+" — ") {
		t.Errorf("tcg against tcg: exit %d, stderr %q, stdout starts %q", code, errOut, strings.SplitN(out, "\n", 2)[0])
	}
}

// TestLabPlanLeaveOneOut runs one leave-one-out configuration of the guest
// kernel's own attribution plan under TCG: a probe boot reads the guest's
// vulnerability files, the plan names no-spectre_v2 (spectre_v2=off), and
// its boot verifies and shows spectre_v2 turned off while on keeps it.
func TestLabPlanLeaveOneOut(t *testing.T) {
	kernel := labKernelForTest(t)
	db := filepath.Join(t.TempDir(), "lab.db")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := Main(ctx, []string{"lab", "--db", db, "--kernel", kernel, "--accel", "tcg",
		"--plan", "leave-one-out", "--only-config", "no-spectre_v2", "--boots", "1", "--plan-seed", "3",
		"--suite", "quick", "--only", "syscall-basic", "--runs", "2", "--warmup", "0",
		"--param", "syscall-basic.loops=2000", "--memory", "512M", "--smp", "1", "--label", "loo",
		"--target-ci", "1", "--budget", "1s"}, &stdout, &stderr)
	t.Logf("sectax lab --plan: exit %d in %s\nstderr:\n%s\nstdout:\n%s", code, time.Since(start).Round(time.Second), stderr.String(), stdout.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	k, _ := lab.ReadKernel(kernel)
	if !strings.Contains(stderr.String(), "plan leave-one-out for kernel "+k.Release+": ") {
		t.Errorf("no plan of the guest kernel on stderr")
	}
	if !strings.HasPrefix(stdout.String(), compare.TCGHeadline+"\n") || !strings.Contains(stdout.String(), "2 configurations") {
		t.Errorf("the matrix is not the TCG one of on and no-spectre_v2")
	}
	// Adaptive repetition: one boot a side has no interval with the boot
	// as the unit, and another round would overrun the budget of 1s.
	if !strings.Contains(stdout.String(), "adaptive: no-spectre_v2 against on: no interval with the boot as the unit yet after 1 boot: stopped by the budget (--budget 1s") {
		t.Errorf("the matrix does not say that the budget stopped adaptive repetition")
	}
	s, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	state := func(cfg string) (string, *run.Verification) {
		label := lab.Label("loo", k.Release, cfg)
		ids, _, err := s.Resolve(ctx, label)
		if err != nil || len(ids) != 1 {
			t.Fatalf("%s: %v %v", label, ids, err)
		}
		r, err := s.Get(ctx, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if r.Config == nil || r.Config.Verification == nil {
			t.Fatalf("%s: no verification", label)
		}
		for _, v := range r.Env.Vulnerabilities {
			if v.Name == "spectre_v2" {
				return string(v.State), r.Config.Verification
			}
		}
		t.Fatalf("%s: no spectre_v2 file", label)
		return "", nil
	}
	on, _ := state("on")
	off, v := state("no-spectre_v2")
	if on != "mitigated" || off == "mitigated" {
		t.Errorf("spectre_v2: on %s, no-spectre_v2 %s; want mitigated, then not", on, off)
	}
	if !v.OK || !slices.Contains(v.ExpectedOff, "spectre_v2") || !strings.Contains(" "+v.Cmdline+" ", " spectre_v2=off ") {
		t.Errorf("no-spectre_v2 verification %+v", v)
	}
}

// TestListShowMarkTCG: list and show of runs a real `sectax lab --accel
// tcg` stored say first that their timings are the emulator's, and mark
// each such run; list's JSON carries the accelerator.
func TestListShowMarkTCG(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", filepath.Join("..", "run", "testdata", "lab-runs.json")); code != 0 {
		t.Fatal(stderr)
	}
	list := e.golden("list-lab-tcg", "list")
	show := e.golden("show-lab-tcg", "show", "20261201T002258-29dc28")
	for name, out := range map[string]string{"list": list, "show": show} {
		if !strings.HasPrefix(out, compare.TCGHeadline) {
			t.Errorf("%s does not start with the TCG headline:\n%s", name, out)
		}
	}
	if strings.Count(list, "quick, lab tcg") != 2 || !strings.Contains(show, "under QEMU -accel tcg") {
		t.Errorf("runs not marked:\n%s\n%s", list, show)
	}
	if _, out, _ := e.run("list", "--format", "json"); strings.Count(out, `"accel": "tcg"`) != 2 {
		t.Errorf("list JSON lacks the accelerator:\n%s", out)
	}
}
