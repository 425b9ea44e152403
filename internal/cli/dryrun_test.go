package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// treeState is every name below dir with its size, mode and mtime: what a
// dry run must leave as it found it.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fi.Mode().String() + " " + fi.ModTime().String()
		if !fi.IsDir() {
			out[p] += fmt.Sprintf(" %d bytes", fi.Size())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, s := range after {
		if b, ok := before[p]; !ok {
			t.Errorf("%s: the dry run created %s", what, p)
		} else if b != s {
			t.Errorf("%s: the dry run changed %s: %s, was %s", what, p, s, b)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s: the dry run removed %s", what, p)
		}
	}
}

// TestCampaignDryRun: campaign start --dry-run prints the plan (golden,
// per mechanism) and changes nothing: no unit, no .wslconfig edit, no
// boot requested, no campaign row, no store file.
func TestCampaignDryRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		systemd bool
	}{
		{"wsl", []string{"--distro", "Debian"}, false},
		{"kexec", []string{"--via", "kexec", "--kernel", "KERNEL", "--initrd", "INITRD"}, true},
		{"manual", []string{"--via", "manual"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Paths of one length wherever TMPDIR is: the text wraps at
			// 100 columns, so where a line breaks depends on them.
			storeDir := testutil.FixedLenDir(t)
			t.Setenv("SECTAX_DB", filepath.Join(storeDir, "sectax.db"))
			f := newFakeBootsIn(t, testutil.FixedLenDir(t))
			if tc.systemd {
				f.write("proc/1/comm", "systemd")
			}
			os.MkdirAll(filepath.Join(f.root, "etc/systemd/system"), 0o755)
			before, beforeStore := treeState(t, f.root), treeState(t, storeDir)
			images := testutil.FixedLenDir(t)
			for i, a := range tc.args {
				if a == "KERNEL" || a == "INITRD" {
					tc.args[i] = filepath.Join(images, strings.ToLower(a))
					os.WriteFile(tc.args[i], []byte(a), 0o644)
				}
			}
			args := append(append([]string{"--root", f.root, "campaign", "start", "--dry-run"}, tinyCampaign...), tc.args...)
			out, errOut, code := sectax(t, campaignDepsFor(f), args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.HasPrefix(out, "Dry run: nothing was changed.\n") {
				t.Errorf("output does not open with the dry-run line:\n%s", out)
			}
			out = strings.ReplaceAll(strings.ReplaceAll(scrubDB(out), f.root, "$ROOT"), images, "$IMAGES")
			testutil.Golden(t, filepath.Join("testdata", "dry-run", "campaign-"+tc.name+".txt"), []byte(out))
			if len(f.requested) != 0 {
				t.Errorf("boots requested: %q", f.requested)
			}
			sameTree(t, "root", before, treeState(t, f.root))
			sameTree(t, "store", beforeStore, treeState(t, storeDir))
			// A campaign that is not started cannot be found.
			if out, errOut, code := sectax(t, campaignDepsFor(f), "--root", f.root, "campaign", "status"); code != 0 || !strings.HasPrefix(out, "no campaign") {
				t.Errorf("status after a dry run: exit %d, %q %q, want no campaign", code, out, errOut)
			}
		})
	}
}

// TestLabDryRun: lab --dry-run prints the boots with their QEMU and kernel
// command lines (golden) without starting QEMU (a fake one that leaves a
// mark when run is never run), opening the store or writing below --root.
func TestLabDryRun(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "vmlinuz-test")
	os.WriteFile(img, []byte("not a kernel"), 0o644)
	mark := filepath.Join(dir, "qemu-ran")
	qemu := filepath.Join(dir, "qemu-system-x86_64")
	if err := os.WriteFile(qemu, []byte("#!/bin/sh\necho \"$@\" >> '"+mark+"'\necho 'QEMU emulator version 9.9.9'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	storeDir := t.TempDir()
	t.Setenv("SECTAX_DB", filepath.Join(storeDir, "sectax.db"))
	f := newFakeBoots(t)
	before, beforeStore, beforeDir := treeState(t, f.root), treeState(t, storeDir), treeState(t, dir)
	out, errOut, code := sectax(t, fixedDeps(nil), "--root", f.root, "lab", "--dry-run", "--kernel", img, "--qemu", qemu,
		"--accel", "tcg", "--boots", "2", "--plan-seed", "42", "--memory", "512M", "--smp", "1",
		"--suite", "quick", "--only", "syscall-basic,sched-pipe", "--runs", "2", "--warmup", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "Dry run: nothing was changed.\n") {
		t.Errorf("output does not open with the dry-run line:\n%s", out)
	}
	testutil.Golden(t, filepath.Join("testdata", "dry-run", "lab.txt"), []byte(strings.ReplaceAll(out, dir, "$DIR")))
	if b, err := os.ReadFile(mark); err == nil {
		t.Errorf("the dry run started QEMU: %s", b)
	}
	sameTree(t, "root", before, treeState(t, f.root))
	sameTree(t, "store", beforeStore, treeState(t, storeDir))
	sameTree(t, "kernel folder", beforeDir, treeState(t, dir))
}
