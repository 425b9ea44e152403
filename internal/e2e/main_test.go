// Package e2e holds the whole-system tests: real QEMU guests under TCG
// booting the installed kernel with sectax (this test binary) as /init,
// driven through cli.Main (sectax lab) or lab.Boot with the tasks sectax
// registers. They are the slow tests, kept out of the packages they
// exercise so that no package carries them all; each is as small as what
// it checks allows. They skip where QEMU or a kernel is missing, except
// under CI=true, where they fail instead.
package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/cli"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

// TestMain lets the test binary be sectax: the /init of every guest (the
// lab's measure and snapshot tasks, the campaign task, and the test's own
// echo and fail tasks) and the worker children it re-executes.
func TestMain(m *testing.M) {
	if lab.IsGuest() {
		lab.RegisterTask("echo", func(ctx context.Context, g *lab.Guest) ([]byte, error) {
			g.Logf("echo task running")
			cmdline, err := os.ReadFile("/proc/cmdline")
			if err != nil {
				return nil, err
			}
			return json.Marshal(map[string]any{"input": g.Task.Input, "cmdline": strings.TrimSpace(string(cmdline))})
		})
	}
	if lab.IsGuest() || (len(os.Args) > 1 && os.Args[1] == workload.WorkerCommand) {
		os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// kernel is the newest installed kernel image that has its modules, with
// QEMU installed and this test binary static (it becomes /init), or a skip
// (a failure under CI=true, where .ci/run installs QEMU and
// linux-image-amd64).
func kernel(t *testing.T) (k lab.KernelImage, modules string) {
	t.Helper()
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		testutil.Need(t, "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)")
	}
	if err := lab.CheckStatic(self(t)); err != nil {
		testutil.Need(t, "the test binary is not static: run the end-to-end tests with CGO_ENABLED=0: %v", err)
	}
	imgs, _ := filepath.Glob("/boot/vmlinuz-*")
	sort.Sort(sort.Reverse(sort.StringSlice(imgs)))
	for _, p := range imgs {
		if k, err := lab.ReadKernel(p); err == nil && k.Release != "" {
			dir := "/lib/modules/" + k.Release
			if _, err := os.Stat(dir); err == nil {
				return k, dir
			}
		}
	}
	testutil.Need(t, "no readable /boot/vmlinuz-* with its /lib/modules (apt-get install linux-image-amd64)")
	return lab.KernelImage{}, ""
}

// self is this test binary, the guests' /init.
func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// tcg is the QEMU of the tests: TCG, the lab's CPU model, 512 MiB, one vCPU.
func tcg(k lab.KernelImage, cmdline string) lab.QEMU {
	return lab.QEMU{Accel: lab.AccelTCG, CPU: lab.TCGCPU, MemoryMiB: 512, SMP: 1, Kernel: k.Path, Append: cmdline}
}
