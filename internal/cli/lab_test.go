package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/testutil"
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
		{[]string{"--runs", "0"}, 2, "--runs 0 measures nothing"},
		{[]string{"--only", ""}, 2, "--only needs workload ids"},
		{[]string{"--kernel", filepath.Join(t.TempDir(), "missing")}, 2, "--kernel"},
		// A device that never ends and a FIFO without a writer are refused
		// at once, not hashed forever or waited on.
		{[]string{"--kernel", "/dev/zero"}, 2, "/dev/zero is a character device"},
		{[]string{"--kernel", fifo}, 2, "is a FIFO"},
		{[]string{"--modules", filepath.Join(t.TempDir(), "missing"), "--kernel", img}, 2, "--modules"},
		{[]string{"--plan", "leave-one-out", "--config", "on"}, 2, "--plan and --config are mutually exclusive"},
		{[]string{"--plan", "all"}, 2, `--plan "all" is not accepted (accepted: leave-one-out, cumulative, study, vectors)`},
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

// TestListShowMarkTCG: list and show of runs a real `sectax lab --accel
// tcg` stored say first that their timings are the emulator's, and mark
// each such run; show prints the run's config and lab blocks; list's JSON
// carries the accelerator. Only these lines are the lab's: the rest of
// list and show is the layout list.golden and show.golden check.
func TestListShowMarkTCG(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", filepath.Join("..", "run", "testdata", "lab-runs.json")); code != 0 {
		t.Fatal(stderr)
	}
	code, list, stderr := e.run("list")
	if code != 0 || stderr != "" {
		t.Fatalf("list: exit %d: %s", code, stderr)
	}
	// Wider than 100 columns, the table is in two parts, each a row per
	// run from its ID (report's table.parts).
	lines := strings.Split(list, "\n")
	if len(lines) != 10 || lines[0] != compare.TCGHeadline+` (runs marked "lab tcg")` || lines[1] != "" ||
		!strings.HasPrefix(lines[2], "ID ") || lines[5] != "" || !strings.HasPrefix(lines[6], "ID ") || lines[9] != "" {
		t.Errorf("list does not start with the TCG headline over two runs:\n%s", list)
	}
	for _, row := range []string{"20261201T002249-ee5c87  lab-6.1.0-57-amd64-off", "20261201T002258-29dc28  lab-6.1.0-57-amd64-on"} {
		id, _, _ := strings.Cut(row, " ")
		if !slices.ContainsFunc(lines[3:5], func(l string) bool { return strings.HasPrefix(l, row) && strings.HasSuffix(l, "  lab 6.1.0-57-amd64") }) ||
			!slices.ContainsFunc(lines[7:9], func(l string) bool {
				return strings.HasPrefix(l, id+" ") && strings.HasSuffix(l, "  quick, lab tcg  complete")
			}) {
			t.Errorf("list does not mark %s as the lab's:\n%s", row, list)
		}
	}
	code, show, stderr := e.run("show", "20261201T002258-29dc28")
	if code != 0 || stderr != "" {
		t.Fatalf("show: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		compare.TCGHeadline + "\n\nrun 20261201T002258-29dc28\n",
		"\n  boot         d49ed3f8-33ff-4cb2-a468-c17a94987fef\n" +
			"  config       on (-)\n" +
			"  lab          boot 2 of 2 under QEMU -accel tcg, CPU model Skylake-Client-v1, 512 MiB, 1 vCPU,\n" +
			"               kernel image /boot/vmlinuz-6.1.0-57-amd64\n\n",
	} {
		if !strings.Contains(show, want) || !strings.HasPrefix(show, compare.TCGHeadline) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
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
	if !strings.Contains(testutil.Unwrap(errOut), "removed "+left) { // wrapped where TMPDIR is long
		t.Errorf("stderr %q does not say what was removed", errOut)
	}
}
