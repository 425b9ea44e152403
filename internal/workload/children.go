package workload

import (
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/run"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// childEnv is the whole environment of a worker child: a small GOMAXPROCS
// (the worker's goroutine keeps its P while blocked in a raw system call,
// so 2 leaves one for the runtime), no garbage collector and no
// asynchronous preemption signals.
var childEnv = []string{"GOMAXPROCS=2", "GOGC=off", "GODEBUG=asyncpreemptoff=1"}

// tasksPerChild is how many kernel tasks (threads) one re-executed worker
// child (spawn=exec) costs: the Go runtime starts a few threads besides the
// worker's. A forked worker (spawn=fork) is one task: it never enters the
// runtime (fork.go).
const tasksPerChild = 5

// procGroup is a set of worker children in one process group of their
// own, so that they can be killed and reaped together on every path.
type procGroup struct {
	env Env
	// pgid is read by the watchdog goroutine while workers are started.
	pgid atomic.Int64
	pids []int
	null int
}

func newProcGroup(env Env) (*procGroup, error) {
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &procGroup{env: env, null: null}, nil
}

// spawn starts `Exe WorkerArgs... args...` with fds[i] as descriptor 3+i.
// The child's standard input and output are /dev/null; its standard error
// is ours, so that a failing worker explains itself.
func (g *procGroup) spawn(args []string, fds ...int) (int, error) {
	files := []uintptr{uintptr(g.null), uintptr(g.null), 2}
	for _, fd := range fds {
		files = append(files, uintptr(fd))
	}
	argv := append([]string{g.env.Exe}, g.env.WorkerArgs...)
	argv = append(argv, args...)
	pid, err := syscall.ForkExec(g.env.Exe, argv, &syscall.ProcAttr{
		Env:   childEnv,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pgid: int(g.pgid.Load()), Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, fmt.Errorf("start worker %s: %w", g.env.Exe, err)
	}
	g.pgid.CompareAndSwap(0, int64(pid))
	g.pids = append(g.pids, pid)
	return pid, nil
}

// kill sends SIGKILL to every child still in the group.
func (g *procGroup) kill() {
	if pgid := int(g.pgid.Load()); pgid != 0 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// reap waits for every child of the group and reports the first one that
// did not exit with status 0.
func (g *procGroup) reap() error {
	var first error
	for left := len(g.pids); left > 0; left-- {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-int(g.pgid.Load()), &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			left++
			continue
		}
		if err != nil {
			if first == nil {
				first = fmt.Errorf("wait for workers: %w", err)
			}
			break
		}
		if first == nil && !(ws.Exited() && ws.ExitStatus() == 0) {
			first = fmt.Errorf("worker %d %s", pid, describeWait(ws))
		}
	}
	g.pids = nil
	return first
}

// close kills and reaps whatever is left; it is safe to call on every path.
func (g *procGroup) close() {
	if len(g.pids) > 0 {
		g.kill()
		g.reap()
	}
	if g.null >= 0 {
		syscall.Close(g.null)
		g.null = -1
	}
}

func describeWait(ws syscall.WaitStatus) string {
	switch {
	case ws.Exited():
		return fmt.Sprintf("exited with status %d", ws.ExitStatus())
	case ws.Signaled():
		return fmt.Sprintf("was killed by %v", ws.Signal())
	}
	return fmt.Sprintf("ended oddly (%#x)", uint32(ws))
}

// footprint sums what processes use, from /proc: Threads from status, Rss
// and Pss from smaps_rollup. Forked workers share most of their pages
// copy-on-write with the parent and each other, so only the proportional
// set size (each shared page divided among its sharers) adds up to memory
// really used; the RSS sum counts a shared page once per process.
func footprint(pids ...int) *run.Footprint {
	f := &run.Footprint{}
	for _, pid := range pids {
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		st := procFields(filepath.Join(dir, "status"), "Threads")
		mem := procFields(filepath.Join(dir, "smaps_rollup"), "Rss", "Pss")
		if mem["Rss"] == 0 {
			continue
		}
		f.Processes++
		f.Threads += st["Threads"]
		f.RSSKiB += mem["Rss"]
		f.PSSKiB += mem["Pss"]
	}
	if f.Processes == 0 {
		return nil
	}
	return f
}

// procFields reads "Key: N …" lines of a /proc file, for the given keys.
func procFields(path string, keys ...string) map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !slices.Contains(keys, k) {
			continue
		}
		if f := strings.Fields(v); len(f) > 0 {
			out[k], _ = strconv.ParseInt(f[0], 10, 64)
		}
	}
	return out
}

// closeAll closes every descriptor in fds that is not -1.
func closeAll(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
}

// pipePair returns a blocking, close-on-exec pipe (read end, write end).
// Close-on-exec keeps the descriptors out of children except where
// ForkExec maps them explicitly.
func pipePair() (r, w int, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return -1, -1, fmt.Errorf("pipe2: %w", err)
	}
	return p[0], p[1], nil
}

// socketPair returns a blocking, close-on-exec AF_UNIX stream pair.
func socketPair() (a, b int, err error) {
	p, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, fmt.Errorf("socketpair: %w", err)
	}
	return p[0], p[1], nil
}
