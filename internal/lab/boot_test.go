package lab

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/testutil"
)

// The test binary is also the guest's /init in the boot tests: started as
// process 1 named /init, it runs the guest side instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeQEMUEnv); mode != "" {
		fakeQEMUMain(mode)
	}
	if IsGuest() {
		RegisterTask("echo", func(ctx context.Context, g *Guest) ([]byte, error) {
			g.Logf("echo task running")
			cmdline, err := os.ReadFile("/proc/cmdline")
			if err != nil {
				return nil, err
			}
			return json.Marshal(map[string]any{"input": g.Task.Input, "cmdline": strings.TrimSpace(string(cmdline))})
		})
		RegisterTask("fail", func(ctx context.Context, g *Guest) ([]byte, error) {
			return nil, os.ErrPermission
		})
		GuestMain()
	}
	os.Exit(m.Run())
}

// testKernel finds an installed kernel image and QEMU, or skips (fails
// under CI=true, where .ci/run installs both).
func testKernel(t *testing.T) (KernelImage, string) {
	t.Helper()
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		testutil.Need(t, "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)")
	}
	imgs, _ := filepath.Glob("/boot/vmlinuz-*")
	sort.Strings(imgs)
	for i := len(imgs) - 1; i >= 0; i-- {
		k, err := ReadKernel(imgs[i])
		if err != nil || k.Release == "" {
			continue
		}
		dir := "/lib/modules/" + k.Release
		if _, err := os.Stat(dir); err == nil {
			return k, dir
		}
	}
	testutil.Need(t, "no readable /boot/vmlinuz-* with its /lib/modules (apt-get install linux-image-amd64)")
	return KernelImage{}, ""
}

func selfStatic(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckStatic(exe); err != nil {
		testutil.Need(t, "test binary is not static (run with CGO_ENABLED=0): %v", err)
	}
	return exe
}

func tcg(k KernelImage, cmdline string) QEMU {
	return QEMU{Accel: AccelTCG, CPU: TCGCPU, MemoryMiB: 512, SMP: 1, Kernel: k.Path, Append: cmdline}
}

func TestBootEcho(t *testing.T) {
	k, modDir := testKernel(t)
	exe := selfStatic(t)
	mods, err := ResolveModules(modDir, []string{"8250"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var frames []byte
	res, err := Boot(ctx, BootOptions{
		QEMU: tcg(k, LabParams+" quiet"),
		Initramfs: &InitramfsOptions{Init: exe, ModulesDir: modDir, Modules: mods,
			Task: Task{Name: "echo", Input: json.RawMessage(`{"x":1}`)}},
		OnFrame: func(f Frame) { frames = append(frames, f.Kind) },
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
	if string(out.Input) != `{"x":1}` || out.Cmdline != LabParams+" quiet" {
		t.Errorf("guest saw input %s cmdline %q", out.Input, out.Cmdline)
	}
	if string(frames) != "HLRD" {
		t.Errorf("frames %q, want HLRD", frames)
	}
	if res.Hello.Release != k.Release {
		t.Errorf("guest release %q, image says %q", res.Hello.Release, k.Release)
	}
}

// fakeQEMU writes a script that stands in for QEMU: it starts a child
// (sleep) in its process group, records both pids, prints stderr and
// hangs, as a QEMU whose guest never reaches /init does.
func fakeQEMU(t *testing.T, stderr string) (bin, pids string) {
	t.Helper()
	dir := t.TempDir()
	pids = filepath.Join(dir, "pids")
	bin = filepath.Join(dir, "qemu-fake")
	script := "#!/bin/sh\nsleep 300 &\necho $$ $! > " + pids + "\nprintf '" + stderr + "' >&2\nwait\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, pids
}

func assertGone(t *testing.T, pidsFile string) {
	t.Helper()
	data, err := os.ReadFile(pidsFile)
	if err != nil {
		t.Fatalf("the fake QEMU did not start: %v", err)
	}
	for _, f := range strings.Fields(string(data)) {
		if _, err := os.Stat("/proc/" + f); err == nil {
			stat, _ := os.ReadFile("/proc/" + f + "/stat")
			if !strings.Contains(string(stat), ") Z ") {
				t.Errorf("process %s is still running after Boot returned", f)
			}
		}
	}
}

func waitFile(p string) {
	for i := 0; i < 100; i++ {
		if data, _ := os.ReadFile(p); len(strings.Fields(string(data))) == 2 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBootAccelFailure(t *testing.T) {
	bin, pids := fakeQEMU(t, "KVM internal error. Suberror: 1\\nemulation failure\\n")
	start := time.Now()
	_, err := Boot(context.Background(), BootOptions{QEMU: QEMU{Binary: bin, Accel: AccelKVM}, Handshake: time.Minute})
	if !errors.Is(err, ErrAccel) || !strings.Contains(err.Error(), "--accel tcg") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s to notice", d)
	}
	waitFile(pids)
	assertGone(t, pids)
}

func TestBootNoHandshake(t *testing.T) {
	bin, pids := fakeQEMU(t, "")
	_, err := Boot(context.Background(), BootOptions{QEMU: QEMU{Binary: bin, Accel: AccelKVM}, Handshake: 700 * time.Millisecond})
	if !errors.Is(err, ErrNoHandshake) || !strings.Contains(err.Error(), "--accel tcg") {
		t.Errorf("err = %v", err)
	}
	assertGone(t, pids)
}

func TestBootCancel(t *testing.T) {
	bin, pids := fakeQEMU(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFile(pids)
		cancel()
	}()
	_, err := Boot(ctx, BootOptions{QEMU: QEMU{Binary: bin, Accel: AccelTCG}, Handshake: time.Minute})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	assertGone(t, pids)
}

func TestBootGuestFailure(t *testing.T) {
	k, modDir := testKernel(t)
	exe := selfStatic(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := Boot(ctx, BootOptions{QEMU: tcg(k, LabParams+" quiet"),
		Initramfs: &InitramfsOptions{Init: exe, ModulesDir: modDir, Task: Task{Name: "fail"}}})
	if !errors.Is(err, ErrGuest) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("err = %v", err)
	}
	if _, serr := os.Stat("/proc/" + strconv.Itoa(res.PID)); serr == nil {
		t.Errorf("QEMU %d still running", res.PID)
	}
}
