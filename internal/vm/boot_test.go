package vm_test

import (
	"context"
	"encoding/json"
	"errors"
	. "github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/vm/vmtest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/proctest"
)

// The test binary is also the guest's /init in the boot tests: started as
// process 1 named /init, it runs the guest side instead of the tests.
func TestMain(m *testing.M) {
	vmtest.Main()
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
	// Boot has sent SIGKILL to the group and reaped QEMU; a process of the
	// group that was asleep dies when it is next scheduled, which on a
	// loaded machine can be a moment later: wait for that (a bounded
	// wait for the observed state), never for a process that was not
	// killed, which stays asleep for its 300 s.
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid %q: %v", f, err)
		}
		if !proctest.Eventually(func() bool { return proctest.Gone(pid) }) {
			t.Errorf("process %d is still running a minute after Boot returned", pid)
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
	// Noticed from QEMU's message, not by waiting out the handshake: with
	// a handshake of 10 minutes, well under that is noticed, however busy
	// the machine.
	_, err := Boot(context.Background(), BootOptions{QEMU: QEMU{Binary: bin, Accel: AccelKVM}, Handshake: 10 * time.Minute})
	if !errors.Is(err, ErrAccel) || !strings.Contains(err.Error(), "--accel tcg") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Minute {
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

// TestBootDescendantHoldingOutput: a QEMU whose child double-forks into a
// process group of its own (setpgid(0,0), same session) and keeps QEMU's
// standard output and error open: Boot returns within its timeout whether
// QEMU hangs or exits at once, and no descendant survives it.
func TestBootDescendantHoldingOutput(t *testing.T) {
	if _, err := child.LookPath("perl"); err != nil {
		t.Skip("no perl to call setpgid")
	}
	for _, end := range []string{"exec sleep 300", "exit 0"} {
		t.Run(strings.Fields(end)[0], func(t *testing.T) {
			dir := t.TempDir()
			pids, bin := filepath.Join(dir, "pids"), filepath.Join(dir, "qemu-fake")
			script := "#!/bin/sh\n( perl -e 'setpgrp(0,0); exec \"sleep\", 300' & echo $! > " + pids + ".tmp )\n" +
				"echo $(cat " + pids + ".tmp) $$ > " + pids + "\n" + end + "\n"
			if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				_, err := Boot(context.Background(), BootOptions{QEMU: QEMU{Binary: bin, Accel: AccelTCG}, Handshake: 10 * time.Minute, Timeout: 2 * time.Second})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Error("a boot with no guest succeeded")
				}
			case <-time.After(2 * time.Minute):
				t.Fatal("Boot still waits, long past its timeout of 2s, on the pipe a descendant holds")
			}
			if d := time.Since(start); d > time.Minute {
				t.Errorf("Boot took %s with a timeout of 2s", d)
			}
			waitFile(pids)
			assertGone(t, pids)
			if c := proctest.LiveChildren(os.Getpid()); len(c) > 0 {
				t.Errorf("children left: %v", c)
			}
		})
	}
}
