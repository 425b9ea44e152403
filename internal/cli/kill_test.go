package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/proctest"
	"github.com/sectax/sectax/internal/testutil"
)

// startSectax starts the real command (this test binary standing in for
// sectax) with extra environment.
func startSectax(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "SECTAX_CLI_MAIN=1", "SECTAX_DB="+filepath.Join(t.TempDir(), "sectax.db")), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &stderr
}

// waitChild polls until parent has a live descendant running program
// name (a timed command is the child of sectax's launcher, not of sectax).
func waitChild(t *testing.T, parent int, name string, d time.Duration, stderr *bytes.Buffer) int {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for queue := proctest.LiveChildren(parent); len(queue) > 0; queue = queue[1:] {
			pid := queue[0]
			if comm(pid) == name {
				return pid
			}
			queue = append(queue, proctest.LiveChildren(pid)...)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s descendant of %d appeared within %v; stderr: %s", name, parent, d, stderr)
	return 0
}

func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

// waitGone polls until pid is gone (or a zombie nobody reaped yet), and
// kills it on failure so that the test leaves nothing behind either.
func waitGone(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if s := proctest.State(pid); s == "" || s == "Z" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d (%s) still runs %v after sectax was killed", pid, comm(pid), d)
}

// TestKillTimedCommand: SIGKILL of `sectax run --cmd 'sleep 37'` takes the
// timed command with it.
func TestKillTimedCommand(t *testing.T) {
	cmd, stderr := startSectax(t, nil, "run", "--no-store", "--root", wslOn, "--cmd", "sleep 37", "--warmup", "0", "--runs", "1")
	sleep := waitChild(t, cmd.Process.Pid, "sleep", 20*time.Second, stderr)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitGone(t, sleep, 10*time.Second)
}

// TestKillGoBuildThenClean: SIGKILL of a go-build run takes the go command
// with it, and leaves its temporary folder, which the next run removes and
// names on stderr.
func TestKillGoBuildThenClean(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd, stderr := startSectax(t, nil, "run", "--no-store", "--root", wslOn, "--only", "go-build",
		"--param", "go-build.target=std", "--warmup", "0", "--runs", "1")
	goPID := waitChild(t, cmd.Process.Pid, "go", 30*time.Second, stderr)
	dirs, _ := filepath.Glob(filepath.Join(tmp, "sectax-go-build-*"))
	if len(dirs) != 1 {
		t.Fatalf("temporary folders: %v", dirs)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitGone(t, goPID, 10*time.Second)
	// The compilers go started are its children, not ours: they do not get
	// the parent-death signal and finish on their own. Kill them here so that
	// they do not write into the folder while it is removed.
	syscall.Kill(-goPID, syscall.SIGKILL)
	if _, err := os.Stat(dirs[0]); err != nil {
		t.Fatalf("the killed run's folder is already gone: %v", err)
	}

	_, errs, code := sectax(t, fixedDeps(nil), "run", "--no-store", "--root", wslOn, "--cmd", "true", "--warmup", "0", "--runs", "1")
	if code != 0 {
		t.Fatalf("next run: exit %d: %s", code, errs)
	}
	want := "removed " + dirs[0] + ", left by sectax pid " + strconv.Itoa(cmd.Process.Pid) + " which is no longer running"
	if !strings.Contains(testutil.Unwrap(errs), want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
		t.Errorf("%s still exists (%v)", dirs[0], err)
	}
}
