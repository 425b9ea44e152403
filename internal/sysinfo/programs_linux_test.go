//go:build linux

package sysinfo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// writeScript puts an executable shell script named name into dir.
func writeScript(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestWSLPrograms runs fake wslinfo, wsl.exe and cmd.exe (real child
// processes found on PATH) the way Collect does on a live WSL guest.
func TestWSLPrograms(t *testing.T) {
	bin := t.TempDir()
	marker := filepath.Join(bin, "saw-utf8")
	// wslinfo of an old WSL without --version: fails.
	writeScript(t, bin, "wslinfo", "exit 1\n")
	// wsl.exe answers in UTF-16LE, as it does when WSL_UTF8 does not reach
	// it; it notes whether WSL_UTF8 and WSLENV were passed.
	writeScript(t, bin, "wsl.exe", `[ "$WSL_UTF8" = 1 ] && case "$WSLENV" in *WSL_UTF8*) : >"`+marker+`";; esac
printf 'W\0S\0L\0 \0v\0e\0r\0s\0i\0o\0n\0:\0 \0002\0.\0006\0.\0003\0.\0000\0\r\0\n\0W\0i\0n\0d\0o\0w\0s\0 \0v\0e\0r\0s\0i\0o\0n\0:\0 \0001\0000\0.\0000\0.\0002\0006\0001\0000\0000\0.\0006\0005\0008\0004\0\r\0\n\0'
`)
	t.Setenv("PATH", bin)
	t.Setenv("USERPROFILE", "")
	// .wslconfig: the root has two Windows profiles and a cmd.exe that
	// names ana's; the locator (wslconfig.Locator, the one sectax
	// wslconfig uses) asks it.
	root := t.TempDir()
	for _, d := range []string{"mnt/c/Users/ana", "mnt/c/Users/bob", "mnt/c/Users/Public", "mnt/c/Windows/System32"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeScript(t, filepath.Join(root, "mnt/c/Windows/System32"), "cmd.exe", `printf 'C:\\Users\\ana\r\n'`+"\n")
	c := &collector{root: root, live: true}
	w := &WSL{}
	c.wslPrograms(context.Background(), w, true, "/mnt/")
	if w.WSLPackageVersion != "2.6.3.0" || w.WindowsVersion != "10.0.26100.6584" {
		t.Errorf("versions %q %q", w.WSLPackageVersion, w.WindowsVersion)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("wsl.exe did not get WSL_UTF8=1 forwarded through WSLENV")
	}
	if w.WSLConfigPath != "/mnt/c/Users/ana/.wslconfig" || w.WSLConfigExists || w.WSLConfigSource != "%UserProfile% from cmd.exe" {
		t.Errorf("wslconfig %q exists=%v source %q", w.WSLConfigPath, w.WSLConfigExists, w.WSLConfigSource)
	}

	// Interop off: no Windows program runs; two profiles are ambiguous,
	// and sysinfo says so rather than picking one.
	w = &WSL{}
	c.wslPrograms(context.Background(), w, false, "/mnt/")
	if w.WSLPackageVersion != "" || w.WSLConfigPath != "" || !w.WSLConfigAmbiguous() ||
		w.WSLConfigSource != "ambiguous: 2 candidates" || len(w.WSLConfigCandidates) != 2 {
		t.Errorf("interop off gave %+v", w)
	}

	// A translated $USERPROFILE (WSLENV=USERPROFILE/p) needs no program.
	t.Setenv("USERPROFILE", "/mnt/c/Users/bob")
	w = &WSL{}
	c.wslPrograms(context.Background(), w, false, "/mnt/")
	if w.WSLConfigPath != "/mnt/c/Users/bob/.wslconfig" {
		t.Errorf("wslconfig %q", w.WSLConfigPath)
	}
}

// TestRunProgramBounded checks that a program that does not end, or ends
// but leaves a child holding its output pipe, cannot hold runProgram past
// its deadline (the test would hang otherwise).
func TestRunProgramBounded(t *testing.T) {
	// Orphans of the probe come to this process, so the test can reap them
	// and see how they ended.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a subreaper: %v", err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	bin := t.TempDir()
	writeScript(t, bin, "hang", "exec sleep 30\n")
	pidFile := filepath.Join(bin, "pid")
	writeScript(t, bin, "leak", "sleep 30 &\necho $! >"+pidFile+"\necho partial\n")
	for _, name := range []string{"hang", "leak"} {
		// The leaking script must get to write its pid file before the
		// deadline even on a loaded machine; the hanging one cannot finish.
		limit := 200 * time.Millisecond
		if name == "leak" {
			limit = 3 * time.Second
		}
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		_, err := runProgram(ctx, nil, "", filepath.Join(bin, name))
		cancel()
		if err == nil && name == "hang" {
			t.Errorf("%s: no error", name)
		}
	}
	// The leaked sleep was reparented to this test process (a subreaper):
	// it must have been killed, not left running.
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	switch _, err := syscall.Wait4(pid, &ws, 0, nil); {
	case errors.Is(err, syscall.ECHILD):
		// package child, a subreaper too, killed and reaped the orphan
		// itself: it must be gone.
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("leaked child %d: kill 0 says %v, want it gone", pid, err)
		}
	case err != nil:
		t.Fatalf("wait for the leaked child: %v", err)
	case !ws.Signaled() || ws.Signal() != syscall.SIGKILL:
		t.Errorf("leaked child ended with %v, want killed", ws)
	}
	if _, err := runProgram(context.Background(), nil, "", filepath.Join(bin, "missing")); err == nil {
		t.Error("missing program: no error")
	}
	out, err := runProgram(context.Background(), []string{"X_SECTAX=1"}, bin, "/bin/sh", "-c", "echo $X_SECTAX; pwd")
	if err != nil || !strings.HasPrefix(string(out), "1\n") || !strings.Contains(string(out), filepath.Base(bin)) {
		t.Errorf("out %q err %v", out, err)
	}
}
