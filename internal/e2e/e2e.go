// Package e2e helps the whole-system tests below it: real QEMU guests under
// TCG booting the installed kernel with sectax (the test binary) as /init,
// driven through cli.Main (sectax lab) or vm.Boot with the tasks sectax
// registers. internal/e2e/lab boots the lab, internal/e2e/campaign runs a
// campaign that kexecs inside a guest; as two packages, go test runs them
// side by side, and no package carries them all. Each test binary's
// TestMain is sectax (cli.Main) when it is a guest's /init or a worker.
// The tests skip where QEMU or a kernel is missing, except under CI=true,
// where they fail instead; -short leaves them out.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/vm"
)

// Kernel is the newest installed kernel image that has its modules, with
// QEMU installed and the test binary static (it becomes /init), or a skip
// (a failure under CI=true, where .ci/run installs QEMU and
// linux-image-amd64). -short skips.
func Kernel(t *testing.T) (k vm.KernelImage, modules string) {
	t.Helper()
	if testing.Short() {
		t.Skip("boots QEMU guests")
	}
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		testutil.Need(t, "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)")
	}
	if err := vm.CheckStatic(Self(t)); err != nil {
		testutil.Need(t, "the test binary is not static: run the end-to-end tests with CGO_ENABLED=0: %v", err)
	}
	imgs, _ := filepath.Glob("/boot/vmlinuz-*")
	sort.Sort(sort.Reverse(sort.StringSlice(imgs)))
	for _, p := range imgs {
		if k, err := vm.ReadKernel(p); err == nil && k.Release != "" {
			dir := "/lib/modules/" + k.Release
			if _, err := os.Stat(dir); err == nil {
				return k, dir
			}
		}
	}
	testutil.Need(t, "no readable /boot/vmlinuz-* with its /lib/modules (apt-get install linux-image-amd64)")
	return vm.KernelImage{}, ""
}

// Self is the test binary, the guests' /init.
func Self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TCG is the QEMU of the tests: TCG, the lab's CPU model, memMiB, one
// vCPU, the kernel started at its PVH entry (vm.Direct, unpacked into a
// folder of the test's): these boots test the guest's side, not how a
// kernel is started (the lab's measured boots, in TestLab, start the
// bzImage).
func TCG(t *testing.T, k vm.KernelImage, memMiB int, cmdline string) vm.QEMU {
	t.Helper()
	direct, err := vm.Direct(context.Background(), k, t.TempDir())
	if err != nil {
		t.Fatalf("unpacking %s: %v", k.Path, err)
	}
	return vm.QEMU{Accel: vm.AccelTCG, CPU: vm.TCGCPU, MemoryMiB: memMiB, SMP: 1, Kernel: k.Path, Direct: direct, Append: cmdline}
}
