package workload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// nprocLimit is the `ulimit -u` of the child: the reproducer's 400.
const nprocLimit = 400

// nprocChild is this test binary as a child under a real RLIMIT_NPROC of
// nprocLimit tasks (counted on top of what its user already runs), as
// nobody when started as root (root is exempt from the limit): it runs
// the preflight of a process-mode sched-messaging run with GROUPS groups
// and, when it passes, the run itself. Exit 0: ran; 2: refused (message
// on stderr); 1: failed.
func nprocChild(groups string) int {
	limit := uint64(nprocLimit)
	if os.Geteuid() != 0 {
		limit += uint64(userTasks(os.Getuid()))
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: limit, Max: limit}); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		return 1
	}
	if os.Geteuid() == 0 {
		// Groups and gid first (as root still), then the uid: a worker
		// left in root's groups would not be limited as the test means.
		if err := syscall.Setgroups(nil); err != nil {
			fmt.Fprintln(os.Stderr, "setgroups:", err)
			return 1
		}
		if err := syscall.Setgid(65534); err != nil {
			fmt.Fprintln(os.Stderr, "setgid:", err)
			return 1
		}
		if err := syscall.Setuid(65534); err != nil {
			fmt.Fprintln(os.Stderr, "setuid:", err)
			return 1
		}
	}
	w := SchedMessaging{}
	p, err := Resolve(w.Info(), Quick, map[string]string{"groups": groups, "loops": "20", "mode": "process", "spawn": "fork"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := w.Preflight(p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if _, err := w.Run(context.Background(), Env{Exe: "/proc/self/exe", WorkerArgs: []string{WorkerCommand}}, p); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 1
	}
	return 0
}

// userTasks counts the tasks (threads) of uid, which RLIMIT_NPROC counts.
func userTasks(uid int) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var u, threads int
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 1 {
				switch f[0] {
				case "Uid:":
					u, _ = strconv.Atoi(f[1])
				case "Threads:":
					threads, _ = strconv.Atoi(f[1])
				}
			}
		}
		if u == uid {
			n += threads
		}
	}
	return n
}

// TestPreflightTaskLimitForked: under `ulimit -u 400`, a process-mode
// messaging run of 5 groups (200 forked workers of one task each, about
// 216 tasks) passes the preflight and really runs; 20 groups (800 workers)
// is refused with the real figure.
func TestPreflightTaskLimitForked(t *testing.T) {
	run := func(groups string) (int, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "SECTAX_TEST_NPROC="+groups)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), stderr.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	}
	if code, errs := run("5"); code != 0 {
		t.Fatalf("5 groups under ulimit -u %d: exit %d: %s", nprocLimit, code, errs)
	}
	code, errs := run("20")
	if code != 2 || !strings.Contains(errs, "800 forked worker processes (one task each) need about 816 tasks") {
		t.Fatalf("20 groups: exit %d: %s", code, errs)
	}
}

// TestWorkerTasks: the estimate per mode.
func TestWorkerTasks(t *testing.T) {
	for _, tt := range []struct {
		mode, spawn string
		want        uint64
	}{
		{"thread", "fork", 216},
		{"process", "fork", 216},
		{"process", "exec", 1016},
	} {
		if n, _ := workerTasks(200, tt.mode, tt.spawn); n != tt.want {
			t.Errorf("%s/%s: %d tasks, want %d", tt.mode, tt.spawn, n, tt.want)
		}
	}
}
