package workload

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/child"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// rusageMetrics are the metrics of the workloads that time a whole external
// command (go-build, cmd), in the order reports show them. The names are a
// contract: the study baselines use wall_s, user_s, sys_s and cpu_pct.
var rusageMetrics = []MetricSpec{
	{Name: "wall_s", Unit: "s", Better: "lower", Help: "wall-clock seconds from start to exit"},
	{Name: "user_s", Unit: "s", Better: "lower", Help: "user CPU seconds of the command and every child it waited for"},
	{Name: "sys_s", Unit: "s", Better: "lower", Help: "system (kernel) CPU seconds of the command and every child it waited for"},
	{Name: "cpu_pct", Unit: "%", Better: "higher", Help: "CPU utilisation: (user+sys)/wall×100 (200% = two cores busy)"},
	{Name: "nvcsw", Unit: "switches", Better: "lower", Help: "voluntary context switches (blocking waits)"},
	{Name: "nivcsw", Unit: "switches", Better: "lower", Help: "involuntary context switches (preemptions)"},
	{Name: "max_rss_kb", Unit: "KiB", Better: "lower", Help: "peak resident set size of the largest process"},
}

// timedChild is one external command to time.
type timedChild struct {
	// path is the resolved program; argv includes argv[0].
	path string
	argv []string
	// dir is the working directory ("" = ours); env nil inherits ours.
	dir string
	env []string
}

// stderrTail is how many bytes of a command's standard error are kept to
// explain a failure, and tailLines how many of its last lines are shown.
const (
	stderrTail = 8 << 10
	tailLines  = 6
)

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// lastLines returns the last n non-blank lines joined with " | ", so that
// they fit the one-line error format.
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var keep []string
	lines := strings.Split(string(t.b), "\n")
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			keep = append(keep, s)
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return strings.Join(keep, " | ")
}

// runTimed runs c once and returns its wall time and the resource usage of
// the command and of every descendant it waited for (wait4's rusage), as
// the rusageMetrics.
//
// The command runs in a process group of its own with standard input and
// output on /dev/null (as hyperfine does) and standard error captured for
// the error message. When ctx is done the whole group is killed with
// SIGKILL and reaped. When the command exits, whatever it left running in
// its group (background jobs) is killed too: a benchmark leaves no process
// behind to disturb the next repetition.
//
// When sectax itself dies without a chance to clean up (SIGKILL, the OOM
// killer), the kernel kills the command: internal/child starts it with
// SIGKILL as its parent-death signal from a thread locked until it is
// reaped (see there why). We chose this over a subreaper or a guard
// process: a guard between sectax and the command would add its own exec
// to every timed repetition. The limit: descendants the command forks
// itself (a shell's children, go build's compilers) do not inherit the
// signal; they are orphaned when sectax is SIGKILLed, finish their own work
// and exit.
func runTimed(ctx context.Context, c timedChild) (Sample, error) {
	if err := ctx.Err(); err != nil {
		return Sample{}, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return Sample{}, err
	}
	defer pr.Close()
	tail := &tailBuffer{max: stderrTail}
	cmd := &child.Cmd{
		Path:   c.path,
		Args:   c.argv,
		Dir:    c.dir,
		Env:    c.env,
		Stderr: pw,
	}
	// Through the launcher where there is one: its report arrives on rr.
	var rr *os.File
	launcher, lerr := launchProgram.Path()
	if lerr == nil {
		// The launcher would report a missing program only as status 127.
		if _, err := os.Stat(c.path); errors.Is(err, fs.ErrNotExist) {
			pw.Close()
			return Sample{}, &UsageError{Msg: fmt.Sprintf("%s: no such program (check the path)", c.path)}
		}
		var rw *os.File
		if rr, rw, err = os.Pipe(); err != nil {
			pw.Close()
			return Sample{}, err
		}
		defer rr.Close()
		defer rw.Close()
		cmd.Path = launcher
		cmd.Args = append([]string{"sectax-launch", c.path}, c.argv...)
		cmd.ExtraFiles = []*os.File{rw}
	}
	start := time.Now()
	wait, err := child.Start(cmd)
	pw.Close()
	if cmd.ExtraFiles != nil {
		cmd.ExtraFiles[0].Close()
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if c.dir != "" {
				if _, serr := os.Stat(c.dir); serr != nil {
					return Sample{}, &UsageError{Msg: fmt.Sprintf("%s: no such directory to run %s in (create it or give another path)", c.dir, c.argv[0])}
				}
			}
			return Sample{}, &UsageError{Msg: fmt.Sprintf("%s: no such program (check the path)", c.path)}
		}
		return Sample{}, fmt.Errorf("start %s: %w", c.path, err)
	}
	pgid := cmd.Process.Pid
	copied := make(chan struct{})
	go func() {
		io.Copy(tail, pr)
		close(copied)
	}()
	var report []byte
	reported := make(chan struct{})
	if rr != nil {
		go func() {
			report = make([]byte, launchReportSize)
			n, _ := io.ReadFull(rr, report)
			report = report[:n]
			close(reported)
		}()
	} else {
		close(reported)
	}
	// Kill the group as soon as ctx is done; the kill of an already empty
	// group fails with ESRCH and is harmless.
	stop := context.AfterFunc(ctx, func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	werr := wait()
	wall := time.Since(start)
	stop()
	syscall.Kill(-pgid, syscall.SIGKILL) // leftovers in the group
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		// A process that left the group (setsid) still holds the pipe.
		pr.Close()
		<-copied
	}
	<-reported // the launcher, the only writer, has exited
	if ctx.Err() != nil {
		return Sample{}, ctx.Err()
	}
	var (
		ws syscall.WaitStatus
		ru *syscall.Rusage
	)
	if ps := cmd.ProcessState; ps != nil {
		ws, _ = ps.Sys().(syscall.WaitStatus)
		ru, _ = ps.SysUsage().(*syscall.Rusage)
	}
	note := rssNoteRusage
	if rr != nil {
		if werr != nil || len(report) != launchReportSize {
			return Sample{}, fmt.Errorf("the launcher of %s %s without reporting the command's status (run the command by hand to see why)", c.argv[0], describeExit(cmd.ProcessState, werr))
		}
		ws, ru = decodeLaunchReport(report)
		note = rssNoteLauncher
		if !ws.Exited() || ws.ExitStatus() != 0 {
			werr = errors.New("failed")
		}
	} else {
		note += " (" + lerr.Error() + ")"
	}
	if werr != nil {
		msg := tail.lastLines(tailLines)
		if msg == "" {
			msg = "no output on standard error"
		}
		return Sample{}, fmt.Errorf("%s %s: %s", c.argv[0], describeStatus(ws), msg)
	}
	s := rusageSample(wall, ru)
	s.Warnings = append(s.Warnings, note)
	return s, nil
}

// How max_rss_kb was measured, said in every run of a timed command.
const (
	rssNoteLauncher = "max_rss_kb is the command's own peak resident set: it is forked from a one-page launcher " +
		"(not from sectax, whose image a vfork-style clone would lend it until execve), as GNU time measures it"
	rssNoteRusage = "max_rss_kb includes sectax's own resident set, which the child shares until its execve " +
		"(no launcher for this architecture): read it as an upper bound"
)

// decodeLaunchReport reads what the launcher writes: the wait status
// (padded to 8 bytes) and struct rusage, in the machine's byte order.
func decodeLaunchReport(b []byte) (syscall.WaitStatus, *syscall.Rusage) {
	ws := syscall.WaitStatus(binary.NativeEndian.Uint32(b))
	ru := &syscall.Rusage{}
	binary.Read(bytes.NewReader(b[8:]), binary.NativeEndian, ru)
	return ws, ru
}

// describeExit says how a command ended ("exited with status 2").
func describeExit(ps *os.ProcessState, err error) string {
	if ps == nil {
		return err.Error()
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	return describeStatus(ws)
}

// describeStatus says how a process ended, from its wait status.
func describeStatus(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ws.ExitStatus())
}

// rusageSample turns a wall time and a finished process's rusage into the
// rusageMetrics.
func rusageSample(wall time.Duration, r *syscall.Rusage) Sample {
	var ru syscall.Rusage
	if r != nil {
		ru = *r
	}
	user := time.Duration(ru.Utime.Nano()).Seconds()
	sys := time.Duration(ru.Stime.Nano()).Seconds()
	w := wall.Seconds()
	return Sample{Values: map[string]float64{
		"wall_s":     w,
		"user_s":     user,
		"sys_s":      sys,
		"cpu_pct":    (user + sys) / w * 100,
		"nvcsw":      float64(ru.Nvcsw),
		"nivcsw":     float64(ru.Nivcsw),
		"max_rss_kb": float64(ru.Maxrss), // Linux reports KiB
	}}
}

// lookProgram resolves name like a shell does (a name with a slash is a
// path) and returns a usage error naming it when there is no such program.
func lookProgram(what, name string) (string, error) {
	path, err := child.LookPath(name)
	if err != nil {
		if strings.Contains(name, "/") {
			return "", &UsageError{Msg: fmt.Sprintf("%s: %s: no such executable file (check the path)", what, name)}
		}
		return "", &UsageError{Msg: fmt.Sprintf("%s: %s: not found in $PATH (give its full path or fix PATH)", what, name)}
	}
	return path, nil
}

// checkDir returns a usage error naming dir when it is not a directory.
func checkDir(what, dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &UsageError{Msg: fmt.Sprintf("%s=%s: no such directory (create it or give another path)", what, dir)}
	case err != nil:
		return &UsageError{Msg: fmt.Sprintf("%s=%s: %v", what, dir, err)}
	case !st.IsDir():
		return &UsageError{Msg: fmt.Sprintf("%s=%s: not a directory (give a directory)", what, dir)}
	}
	return nil
}

// removeTemp removes a workload's temporary directory. A failure is not
// silent: it becomes a warning beside a good sample, or part of the error.
func removeTemp(dir string, s *Sample, err *error) {
	rerr := os.RemoveAll(dir)
	switch {
	case rerr == nil:
	case *err == nil:
		s.Warnings = append(s.Warnings, fmt.Sprintf("could not remove the temporary directory %s: %v (remove it by hand)", dir, rerr))
	default:
		*err = fmt.Errorf("%w (and could not remove the temporary directory %s: %v)", *err, dir, rerr)
	}
}
