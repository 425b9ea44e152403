package workload

import (
	"context"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/child"
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

// runTimed runs c once and returns the command's wall time and its resource
// usage (wait4's rusage of the command and of every descendant it waited
// for) as the rusageMetrics, with a note that says how they were measured.
// launch (launch.go) says what is inside the timed window.
func runTimed(ctx context.Context, c timedChild) (Sample, error) {
	r, err := launch(ctx, c, launchProgram)
	if err != nil {
		return Sample{}, err
	}
	s := rusageSample(r.wall, r.usage)
	s.Warnings = append(s.Warnings, r.note)
	return s, nil
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
