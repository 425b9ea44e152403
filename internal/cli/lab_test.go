package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
)

// TestLabUsage checks the mistakes sectax lab refuses before booting
// anything: one line, exit 2 (1 for a missing kernel image of the running
// system, which names the package to install).
func TestLabUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	img := filepath.Join(t.TempDir(), "vmlinuz-x")
	os.WriteFile(img, []byte("not a kernel"), 0o644)
	huge := filepath.Join(t.TempDir(), "vmlinuz-huge")
	os.WriteFile(huge, nil, 0o644)
	os.Truncate(huge, 1<<40)
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
		{[]string{"--boots", "0"}, 2, "--boots 0: give 1 to 50 boots"},
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
		// A sparse 1 TB image is refused before it is hashed; a
		// configuration may not take away the lab's console= or panic=.
		{[]string{"--kernel", huge}, 2, "larger than any kernel"},
		{[]string{"--config", "on", "--config", "quiet=panic=0", "--kernel", img, "--accel", "tcg", "--qemu", "true"}, 2, "configuration quiet sets panic=0, which the lab sets itself"},
	} {
		args := append([]string{"lab", "--db", db}, tc.args...)
		_, errOut, code := sectax(t, fixedDeps(nil), args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q on one line", tc.args, code, errOut, tc.code, tc.want)
		}
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

// TestOnlyConfigs: --only-config keeps on (the baseline) and the named
// configurations of the plan, in the plan's order of on first, and names
// the plan's configurations when a name is not among them.
func TestOnlyConfigs(t *testing.T) {
	plan, err := config.ParseAll([]string{"on", "off", "no-spectre_v2=spectre_v2=off", "no-retbleed=retbleed=off"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := onlyConfigs(plan, []string{"no-retbleed", "on", "no-retbleed"})
	if err != nil || len(got) != 2 || got[0].Name != "on" || got[1].Name != "no-retbleed" {
		t.Errorf("got %v, %v", got, err)
	}
	if all, _ := onlyConfigs(plan, nil); len(all) != 4 {
		t.Errorf("no --only-config: %d configurations", len(all))
	}
	_, err = onlyConfigs(plan, []string{"no-mds"})
	if exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "it has on, off, no-spectre_v2, no-retbleed") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestLabAdaptRound: adaptive repetition compares each configuration with
// on from the stored runs, stops it when its interval (the boot as the
// unit) is within the target, and otherwise plans a round of on and it.
func TestLabAdaptRound(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// on: 6 boots at 10 µs/op; tight: 6 boots at 5 µs/op ± 0.2%; wide:
	// 6 boots between 3 and 8 µs/op.
	spread := map[string][]float64{
		"on":    {10, 10.01, 9.99, 10.02, 9.98, 10},
		"tight": {5, 5.01, 4.99, 5.005, 4.995, 5},
		"wide":  {3, 8, 4, 7, 5, 6},
	}
	var docs []store.Doc
	for cfg, xs := range spread {
		for i, x := range xs {
			snap, err := sysinfo.Collect("../sysinfo/testdata/wsl2-intel-on")
			if err != nil {
				t.Fatal(err)
			}
			snap.BootID = fmt.Sprintf("%s-%d", cfg, i)
			docs = append(docs, store.Doc{Run: &run.Run{Schema: run.Schema, ID: fmt.Sprintf("20261201T000000-%s%d", cfg, i),
				Label: lab.Label("lab", "k", cfg), Status: run.StatusComplete, Engine: "native", Env: snap,
				Lab: &run.Lab{Accel: "kvm", CPUModel: "host"},
				Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
					Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: []float64{x, x, x}}}}}}})
		}
	}
	if _, err := db.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	configs, _ := config.ParseAll([]string{"on", "tight=spectre_v2=off", "wide=pti=off"})
	o := &labOptions{prefix: "lab", targetCI: 2, budget: time.Hour, adaptStopped: map[string]bool{}}
	var stderr bytes.Buffer
	g := &Globals{stderr: &stderr}
	booted := map[string]int{"on": 6, "tight": 6, "wide": 6}
	steps, notes, err := labAdaptRound(ctx, g, db, o, []string{"k"}, configs, booted, time.Minute, time.Minute, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, st := range steps {
		labels = append(labels, st.Label)
		if st.Round != 7 {
			t.Errorf("step %+v: round %d", st, st.Round)
		}
	}
	sort.Strings(labels)
	if !slices.Equal(labels, []string{"lab-k-on", "lab-k-wide"}) {
		t.Errorf("next round %v, want on and wide", labels)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "adaptive: tight against on: interval ±") || !strings.HasSuffix(notes[0], "after 6 boots: stopped by the target (--target-ci 2)") {
		t.Errorf("notes %q", notes)
	}
	// The next decision skips tight; with the budget nearly spent, wide
	// stops there.
	steps, notes, err = labAdaptRound(ctx, g, db, o, []string{"k"}, configs, booted, 59*time.Minute, time.Minute, 1, 8)
	if err != nil || len(steps) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "wide against on: interval ±") || !strings.Contains(notes[0], "stopped by the budget (--budget 1h0m0s, 59:00 spent)") {
		t.Errorf("steps %v, notes %q, err %v", steps, notes, err)
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

// TestLabRemovesStaleBootFolders: the folder of a boot whose sectax was
// killed (SIGKILL: no deferred removal ran) holds its initramfs, channel
// and console; a later sectax lab removes it once its owner is gone, as
// sectax run does go-build's.
func TestLabRemovesStaleBootFolders(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	left := filepath.Join(tmp, "sectax-lab-123")
	os.Mkdir(left, 0o700)
	for _, f := range []string{"initramfs.cpio", "channel.bin", "console.log"} {
		os.WriteFile(filepath.Join(left, f), []byte("x"), 0o644)
	}
	os.WriteFile(filepath.Join(left, ".sectax-owner"), []byte(fmt.Sprintf("pid %d\nstart 1\nboot %s\n", dead.Process.Pid, strings.TrimSpace(string(boot)))), 0o600)
	_, errOut, _ := sectax(t, fixedDeps(nil), "lab", "--db", filepath.Join(tmp, "s.db"), "--kernel", filepath.Join(tmp, "missing"))
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("%s is still there (stderr %q)", left, errOut)
	}
	if !strings.Contains(errOut, "removed "+left) {
		t.Errorf("stderr %q does not say what was removed", errOut)
	}
}
