package labe2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/e2e"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/vm"
)

// TestBootEcho: one real boot to /init and back: the guest loads the
// module it is given, says hello with the kernel's release, receives the
// task's input and the exact command line, and the frames arrive in order
// (hello, log, result, done).
func TestBootEcho(t *testing.T) {
	t.Parallel() // one TCG vCPU each: two boots share the two cores
	k, modDir := e2e.Kernel(t)
	mods, err := vm.ResolveModules(modDir, []string{"8250"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var frames []byte
	res, err := vm.Boot(ctx, vm.BootOptions{
		QEMU: e2e.TCG(t, k, 512, vm.LabParams+" quiet"),
		Initramfs: &vm.InitramfsOptions{Init: e2e.Self(t), ModulesDir: modDir, Modules: mods,
			Task: vm.Task{Name: "echo", Input: json.RawMessage(`{"x":1}`)}},
		OnFrame: func(f vm.Frame) { frames = append(frames, f.Kind) },
	})
	if err != nil {
		t.Fatalf("boot: %v\nconsole:\n%s", err, res.Console)
	}
	t.Logf("boot to hello %s (guest uptime %.2fs), wall %s, QEMU peak RSS %d MiB", res.ToHello, res.Hello.UptimeS, res.Wall, res.PeakRSSKiB/1024)
	var out struct {
		Input   json.RawMessage
		Cmdline string
	}
	if err := json.Unmarshal(res.Result, &out); err != nil {
		t.Fatalf("result %q: %v", res.Result, err)
	}
	if string(out.Input) != `{"x":1}` || out.Cmdline != vm.LabParams+" quiet" {
		t.Errorf("guest saw input %s cmdline %q", out.Input, out.Cmdline)
	}
	if string(frames) != "HLRD" {
		t.Errorf("frames %q, want HLRD", frames)
	}
	if res.Hello.Release != k.Release {
		t.Errorf("guest release %q, image says %q", res.Hello.Release, k.Release)
	}
}

// TestLabGuestRefusesUnverifiedBoot: the measure task, given a boot whose
// command line lacks its configuration's parameters, refuses to measure:
// the task fails in the guest, Boot returns ErrGuest (and ErrNotVerified)
// with the guest's one-line reason, no result comes back, and QEMU is gone
// when Boot returns. (This boot is also the lab's test of a failing guest
// task, which had a boot of its own.)
func TestLabGuestRefusesUnverifiedBoot(t *testing.T) {
	t.Parallel() // one TCG vCPU each: two boots share the two cores
	k, modDir := e2e.Kernel(t)
	input, _ := json.Marshal(lab.MeasureInput{RunID: "20261201T000000-000000", Label: "x-off", Config: bootconfig.Off,
		Plan: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Request: plan.Request{Suite: "quick", Only: []string{"syscall-basic"}, Repetitions: 2}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := vm.Boot(ctx, vm.BootOptions{
		QEMU:      e2e.TCG(t, k, 512, bootconfig.On.Cmdline(vm.LabParams, []bootconfig.Config{bootconfig.On, bootconfig.Off})),
		Initramfs: &vm.InitramfsOptions{Init: e2e.Self(t), ModulesDir: modDir, Task: vm.Task{Name: lab.MeasureTask, Input: input}},
	})
	if !errors.Is(err, vm.ErrGuest) || !errors.Is(err, vm.ErrNotVerified) || !strings.Contains(err.Error(), "does not verify as configuration off") ||
		!strings.Contains(err.Error(), "mitigations=off is not on the command line") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
	if res.Result != nil {
		t.Errorf("the guest sent a result for a boot that did not verify")
	}
	if res.PID <= 0 {
		t.Fatalf("no QEMU pid in the result")
	}
	if _, serr := os.Stat("/proc/" + strconv.Itoa(res.PID)); serr == nil {
		t.Errorf("QEMU %d still running", res.PID)
	}
}
