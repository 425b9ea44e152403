package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/proctest"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"

	"golang.org/x/sys/unix"
)

// TestInterruptMessaging runs the real command (this test binary standing
// in for sectax) on a process-mode messaging run far too long to finish,
// sends SIGINT once its workers are up, and checks the contract: exit 130,
// what finished is printed, and no worker process is left. The test process
// makes itself a child subreaper, so an orphaned worker would be reparented
// here and show up as our child.
func TestInterruptMessaging(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a subreaper: %v", err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			// This test process is a subreaper since an earlier test's
			// child.Start (internal/child): reap what other tests' programs
			// left to it, so that only this run's leftovers are counted.
			for {
				if pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); err != nil || pid <= 0 {
					break
				}
			}
			// What is still our child now is not this run's: the test
			// binary's shared PostgreSQL server (postgres_test.go) lives
			// until TestMain stops it.
			before := map[int]bool{}
			for _, pid := range proctest.Children(os.Getpid()) {
				before[pid] = true
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(os.Args[0], "run", "--yes", "--warmup", "0", "--runs", "3", "--seed", "1",
				"--only", "syscall-basic,sched-messaging", "--param", "syscall-basic.loops=1000",
				"--param", "sched-messaging.groups=1", "--param", "sched-messaging.loops=100000000")
			dbPath := filepath.Join(t.TempDir(), "sectax.db")
			cmd.Env = append(os.Environ(), "SECTAX_CLI_MAIN=1", "SECTAX_DB="+dbPath)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Seed 1 runs syscall-basic first in round 1, so a sample of it has
			// finished when the messaging run is interrupted. Wait until the
			// 40 workers of one group (20 senders, 20 receivers) exist, then
			// interrupt: one group is as much a tree of workers to reap as
			// three, at a third of the processes.
			// The deadline is a watchdog for a hang (a loaded machine starts
			// 40 processes slowly), not a measure.
			deadline := time.Now().Add(3 * time.Minute)
			for proctest.Descendants(cmd.Process.Pid) < 40 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("workers never appeared; stderr: %s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a watchdog, not a measure: promptly is seconds
				cmd.Process.Kill()
				t.Fatal("sectax did not exit within a minute of the signal")
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
				t.Fatalf("exit = %v, want %d; stderr: %s", err, ExitInterrupted, stderr.String())
			}
			if !strings.Contains(stdout.String(), "status interrupted") || !strings.Contains(stdout.String(), "syscall-basic") {
				t.Errorf("finished samples not printed:\n%s", stdout.String())
			}
			if !strings.Contains(stderr.String(), "interrupted:") {
				t.Errorf("stderr = %q", stderr.String())
			}
			// Reap anything reparented to us; there must be nothing. A worker
			// left behind when sectax exited was reparented here then, so
			// it is already our child (or zombie): no need to wait.
			var orphans []int
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if err != nil || pid <= 0 {
					break
				}
				if !before[pid] {
					orphans = append(orphans, pid)
				}
			}
			for _, pid := range proctest.Children(os.Getpid()) {
				if !before[pid] {
					orphans = append(orphans, pid)
				}
			}
			if len(orphans) > 0 {
				t.Fatalf("%d orphaned worker(s) left behind: pids %v", len(orphans), orphans)
			}
			// The store kept the run, marked interrupted, with what finished.
			db, err := storetest.Ref(t, dbPath).Open(context.Background(), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			runs, err := db.List(context.Background())
			if err != nil || len(runs) != 1 {
				t.Fatalf("stored runs: %v, %v", runs, err)
			}
			r, err := db.Get(context.Background(), runs[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != "interrupted" || len(r.Results[0].Metrics[0].Samples) == 0 {
				t.Errorf("stored run: status %s, syscall-basic samples %v", r.Status, r.Results[0].Metrics[0].Samples)
			}
		})
	}
}

// TestPreflightFileLimit runs the real command under a hard RLIMIT_NOFILE
// of 64 and asks for a thread-mode messaging run that needs about 860
// descriptors: it must refuse before starting anything, naming the limit
// and how to raise it.
func TestPreflightFileLimit(t *testing.T) {
	cmd := exec.Command("sh", "-c", `ulimit -Sn 64 && ulimit -Hn 64 && exec "$0" "$@"`, os.Args[0],
		"run", "--no-store", "--root", wslOn, "--only", "sched-messaging",
		"--param", "sched-messaging.mode=thread", "--param", "sched-messaging.groups=20")
	cmd.Env = append(os.Environ(), "SECTAX_CLI_MAIN=1", "SECTAX_DB="+filepath.Join(t.TempDir(), "sectax.db"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage {
		t.Fatalf("exit = %v, want %d; stderr: %s", err, ExitUsage, stderr.String())
	}
	for _, want := range []string{"RLIMIT_NOFILE is 64", "ulimit -n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
}

// blockedStdout returns the write end of a one-page pipe that nobody
// reads: a command printing more than a page to it blocks in write, as it
// does under `sectax … | less` left waiting.
func blockedStdout(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
		t.Fatal(err)
	}
	return w
}

// interruptBlocked starts the real command with stdout on a pipe nobody
// reads, sends sig once it is blocked and expects exit 130 promptly. With
// env "BLOCK=stderr" it is standard error that blocks.
func interruptBlocked(t *testing.T, sig syscall.Signal, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "SECTAX_CLI_MAIN=1"), env...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = blockedStdout(t), &stderr
	if slices.Contains(env, "BLOCK=stderr") {
		cmd.Stdout, cmd.Stderr = &stderr, blockedStdout(t)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitBlocked(cmd.Process.Pid, time.Minute)
	cmd.Process.Signal(sig)
	if code := waitExit(t, cmd, time.Minute); code != ExitInterrupted {
		t.Fatalf("%v: exit %d, want %d; stderr: %s", args, code, ExitInterrupted, stderr.String())
	}
	// Said in words, never Go's "context canceled" (issue 36).
	if s := stderr.String(); strings.Contains(s, "context canceled") || (strings.Contains(s, "sectax: ") && !strings.Contains(s, "interrupted")) {
		t.Errorf("%v: stderr %q, want it to say it was interrupted", args, s)
	}
}

// waitBlocked polls until a thread of pid sleeps writing a full pipe or
// opening a FIFO without a reader (its wchan says so: pipe_write,
// anon_pipe_write on newer kernels, wait_for_partner), or d passes: only
// then is the command surely past installing its signal handling, and
// stuck where the test wants it.
func waitBlocked(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
		for _, w := range tasks {
			if b, _ := os.ReadFile(w); strings.Contains(string(b), "pipe_write") || string(b) == "wait_for_partner" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCompareInterrupt: compare honours SIGINT and SIGTERM while it is
// busy (here: blocked writing the HTML page to a full pipe), and writes no
// -o file when interrupted.
func TestCompareInterrupt(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		interruptBlocked(t, sig, []string{"SECTAX_DB=" + e.db}, "compare", "on", "off", "--format", "html")
	}
	// With -o a FIFO nobody reads, nothing is written and nothing is left.
	fifo := filepath.Join(e.dir, "page.html")
	unix.Mkfifo(fifo, 0o600)
	interruptBlocked(t, syscall.SIGINT, []string{"SECTAX_DB=" + e.db}, "compare", "on", "off", "--format", "html", "-o", fifo)
	if left, _ := filepath.Glob(filepath.Join(e.dir, ".sectax-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestWSLConfigInterrupt: wslconfig show and set --dry-run honour SIGINT.
func TestWSLConfigInterrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".wslconfig")
	var b strings.Builder
	b.WriteString("[wsl2]\nkernelCommandLine = quiet\n")
	for i := range 400 {
		fmt.Fprintf(&b, "[s%d]\nkernelCommandLine = x\n", i)
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	interruptBlocked(t, syscall.SIGINT, nil, "wslconfig", "show", "--path", path)
	interruptBlocked(t, syscall.SIGTERM, []string{"BLOCK=stderr"}, "wslconfig", "set", "mitigations=off", "--dry-run", "--path", path)
	if got, _ := os.ReadFile(path); string(got) != b.String() {
		t.Error("the file changed")
	}
}

// TestWSLConfigNotRegular: `sectax wslconfig show --path FIFO` (and a
// device, a directory) is refused in one line at once instead of hanging
// for a writer.
func TestWSLConfigNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	unix.Mkfifo(fifo, 0o600)
	for _, tt := range []struct {
		path, want string
		code       int
	}{
		{fifo, fifo + " is a FIFO, not a .wslconfig file: pass --path with the file itself", ExitError},
		{os.DevNull, "/dev/null is a character device", ExitError},
		{dir, "--path " + dir + " is a folder; give the file", ExitUsage},
	} {
		for _, verb := range [][]string{{"show"}, {"set", "mitigations=off"}} {
			cmd := exec.Command(os.Args[0], append(append([]string{"wslconfig"}, verb...), "--path", tt.path)...)
			cmd.Env = append(os.Environ(), "SECTAX_CLI_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			code := waitExit(t, cmd, time.Minute)
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("%v %s: exit %d, stderr %q; want one line with %q", verb, tt.path, code, stderr.String(), tt.want)
			}
		}
	}
}

// TestReadOnlyInterrupt: the commands that only read and print end with
// SIGINT while blocked on a full standard output.
func TestReadOnlyInterrupt(t *testing.T) {
	interruptBlocked(t, syscall.SIGINT, nil, "workloads", "--format", "json")
	interruptBlocked(t, syscall.SIGINT, nil, "env", "--root", wslOn, "--format", "json")
	interruptBlocked(t, syscall.SIGINT, nil, "advise", "--root", wslOn)
}
