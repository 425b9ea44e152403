package workload

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// needFiles makes sure this process may open n descriptors, raising the
// soft RLIMIT_NOFILE up to the hard limit when that is enough.
func needFiles(n uint64) error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return nil // cannot tell; let the run find out
	}
	if rl.Cur >= n {
		return nil
	}
	if rl.Max >= n {
		rl.Cur = n
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil {
			return nil
		}
	}
	return &UsageError{Msg: fmt.Sprintf("this size needs %d open files but RLIMIT_NOFILE is %d (hard %d): raise it with `ulimit -n %d` (or lower the groups parameter)", n, rl.Cur, rl.Max, n)}
}

// parentTasks is what the measuring process itself may use besides its
// workers: the Go runtime's threads, the locked measuring thread, and the
// extra Ps atLeastProcs adds.
const parentTasks = 16

// workerTasks is how many kernel tasks (processes and threads count alike
// for RLIMIT_NPROC and pids.max) a run of n workers needs, and how to say
// so: threads of this process (mode=thread), forked copies of one task each
// (spawn=fork), or re-executed Go programs of about tasksPerChild threads
// each (spawn=exec).
func workerTasks(n int64, mode, spawn string) (uint64, string) {
	switch {
	case mode == "thread":
		return uint64(n + parentTasks), fmt.Sprintf("%d worker threads", n)
	case spawn == "fork":
		return uint64(n + parentTasks), fmt.Sprintf("%d forked worker processes (one task each)", n)
	}
	return uint64(n*tasksPerChild + parentTasks),
		fmt.Sprintf("%d worker processes of about %d threads each", n, tasksPerChild)
}

// needTasks makes sure n more tasks (processes and threads) can be created:
// RLIMIT_NPROC (raised up to the hard limit when enough) and the cgroup's
// pids.max.
func needTasks(n uint64, what string) error {
	if os.Geteuid() != 0 {
		var rl unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_NPROC, &rl); err == nil && rl.Cur != unix.RLIM_INFINITY && rl.Cur < n {
			if rl.Max == unix.RLIM_INFINITY || rl.Max >= n {
				rl.Cur = n
				if err := unix.Setrlimit(unix.RLIMIT_NPROC, &rl); err == nil {
					goto cgroup
				}
			}
			return &UsageError{Msg: fmt.Sprintf("%s need about %d tasks but RLIMIT_NPROC is %d (hard %d): raise it with `ulimit -u %d` (or lower the groups parameter)", what, n, rl.Cur, rl.Max, n)}
		}
	}
cgroup:
	max, cur, path, ok := cgroupPids()
	if ok && cur+n > max {
		return &UsageError{Msg: fmt.Sprintf("%s need about %d tasks but the cgroup %s allows %d more (pids.max %d): run under `systemd-run --user --scope -p TasksMax=infinity`, raise pids.max, or lower the groups parameter", what, n, path, max-cur, max)}
	}
	return nil
}

// cgroupPids reads pids.max and pids.current of this process's cgroup v2.
func cgroupPids() (max, cur uint64, path string, ok bool) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return 0, 0, "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, found := strings.CutPrefix(sc.Text(), "0::")
		if !found {
			continue
		}
		dir := filepath.Join("/sys/fs/cgroup", rest)
		mb, err1 := os.ReadFile(filepath.Join(dir, "pids.max"))
		cb, err2 := os.ReadFile(filepath.Join(dir, "pids.current"))
		if err1 != nil || err2 != nil {
			return 0, 0, "", false
		}
		ms, cs := strings.TrimSpace(string(mb)), strings.TrimSpace(string(cb))
		if ms == "max" {
			return 0, 0, "", false
		}
		max, err1 = strconv.ParseUint(ms, 10, 64)
		cur, err2 = strconv.ParseUint(cs, 10, 64)
		return max, cur, rest, err1 == nil && err2 == nil
	}
	return 0, 0, "", false
}
