package workload

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/sectax/sectax/internal/child"
)

// timedRun is what one run of a timed command measured.
type timedRun struct {
	// wall is the command's time. With the launcher it is the launcher's
	// CLOCK_MONOTONIC from just before its vfork of the command to the
	// return of its wait4, as hyperfine times a command; sectax's own
	// start of the launcher (a clone of a large Go process, its signal
	// resets, the execve) and everything after (the report, sectax's
	// wake-up) are outside. Without a launcher it is sectax's clock around
	// the start of the command and its wait.
	wall time.Duration
	// outer is sectax's clock around its start of the launcher and its
	// wait: the window before issue 31, kept to show what the launcher
	// leaves out.
	outer time.Duration
	// usage is wait4's rusage of the command and of every descendant it
	// waited for; launcher is what sectax's own wait returned for the
	// process it started (the launcher, which includes the command).
	usage, launcher *syscall.Rusage
	// byLauncher says that wall and usage come from the launcher; note
	// says how they were measured, for the run.
	byLauncher bool
	note       string
}

// How a timed command was measured, said in every run of one: one line
// that fits 100 columns after "  go-build: " (the detail is in
// docs/workloads.md, said once).
const (
	noteLauncher   = "timed by sectax's launcher: the command's own wall time and rusage (docs/workloads.md)"
	noteNoLauncher = "upper bounds: wall_s and max_rss_kb include sectax's start of the command"
)

// launch runs c once through the launcher lp (nil: none) and returns what
// it measured.
//
// The command runs in a process group of its own with standard input and
// output on /dev/null (as hyperfine does) and standard error captured for
// the error message. When ctx is done the whole group is killed with
// SIGKILL and reaped. When the command exits, whatever it left running in
// its group (background jobs) is killed too: a benchmark leaves no process
// behind to disturb the next repetition.
//
// When sectax itself dies without a chance to clean up (SIGKILL, the OOM
// killer), the kernel kills the command: internal/child starts the launcher
// with SIGKILL as its parent-death signal from a thread locked until it is
// reaped (see there why), and the launcher gives the command the same
// signal. We chose this over a subreaper or a guard process: a guard would
// add its own exec to every repetition. The limit: descendants the command
// forks itself (a shell's children, go build's compilers) do not inherit
// the signal; they are orphaned when sectax is SIGKILLed, finish their own
// work and exit.
func launch(ctx context.Context, c timedChild, lp *tinyProgram) (timedRun, error) {
	if err := ctx.Err(); err != nil {
		return timedRun{}, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return timedRun{}, err
	}
	defer pr.Close()
	// Everything sectax does for a repetition is set up before the
	// launcher starts, so that sectax is quiet while the command runs.
	tail := &tailBuffer{max: stderrTail}
	copied := make(chan struct{})
	go func() {
		io.Copy(tail, pr)
		close(copied)
	}()
	cmd := &child.Cmd{
		Path:   c.path,
		Args:   c.argv,
		Dir:    c.dir,
		Env:    c.env,
		Stderr: pw,
	}
	// Through the launcher where there is one: its report arrives on rr.
	var rr, rw *os.File
	lerr := errors.New("no launcher")
	if lp != nil {
		var path string
		if path, lerr = lp.Path(); lerr == nil {
			// The launcher would report a missing program only as status 127.
			if _, err := os.Stat(c.path); errors.Is(err, fs.ErrNotExist) {
				pw.Close()
				return timedRun{}, &UsageError{Msg: fmt.Sprintf("%s: no such program (check the path)", c.path)}
			}
			if rr, rw, err = os.Pipe(); err != nil {
				pw.Close()
				return timedRun{}, err
			}
			defer rr.Close()
			defer rw.Close()
			cmd.Path = path
			cmd.Args = append([]string{"sectax-launch", c.path}, c.argv...)
			cmd.ExtraFiles = []*os.File{rw}
		}
	}
	start := time.Now()
	wait, err := child.Start(cmd)
	pw.Close()
	if rw != nil {
		rw.Close()
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if c.dir != "" {
				if _, serr := os.Stat(c.dir); serr != nil {
					return timedRun{}, &UsageError{Msg: fmt.Sprintf("%s: no such directory to run %s in (create it or give another path)", c.dir, c.argv[0])}
				}
			}
			return timedRun{}, &UsageError{Msg: fmt.Sprintf("%s: no such program (check the path)", c.path)}
		}
		return timedRun{}, fmt.Errorf("start %s: %w", c.path, err)
	}
	pgid := cmd.Process.Pid
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
	if ctx.Err() != nil {
		return timedRun{}, ctx.Err()
	}
	r := timedRun{wall: wall, outer: wall}
	if lerr != nil {
		r.note = noteNoLauncher + " (" + lerr.Error() + ")"
	}
	var ws syscall.WaitStatus
	if ps := cmd.ProcessState; ps != nil {
		ws, _ = ps.Sys().(syscall.WaitStatus)
		r.launcher, _ = ps.SysUsage().(*syscall.Rusage)
	}
	r.usage = r.launcher
	if rr != nil {
		// The launcher, the report's only writer, has exited: what it wrote
		// is in the pipe. The deadline covers a launcher killed before it
		// closed its copy in the command (the group was killed above).
		rr.SetReadDeadline(time.Now().Add(2 * time.Second))
		report := make([]byte, launchReportSize)
		n, _ := io.ReadFull(rr, report)
		if werr != nil || n != launchReportSize {
			return timedRun{}, fmt.Errorf("the launcher of %s %s without reporting the command's status (run the command by hand to see why)", c.argv[0], describeExit(cmd.ProcessState, werr))
		}
		lr, err := decodeLaunchReport(report)
		if err != nil {
			return timedRun{}, fmt.Errorf("the launcher of %s: %w", c.argv[0], err)
		}
		ws, r.usage, r.wall = lr.status, &lr.usage, lr.wall
		r.byLauncher, r.note = true, noteLauncher
		werr = nil
		if !ws.Exited() || ws.ExitStatus() != 0 {
			werr = errors.New("failed")
		}
	}
	if werr != nil {
		msg := tail.lastLines(tailLines)
		if msg == "" {
			msg = "no output on standard error"
		}
		return timedRun{}, fmt.Errorf("%s %s: %s", c.argv[0], describeStatus(ws), msg)
	}
	return r, nil
}

// launchReport is what the launcher writes to descriptor 3 when the
// command has ended.
type launchReport struct {
	status syscall.WaitStatus
	usage  syscall.Rusage
	// wall is the launcher's CLOCK_MONOTONIC after wait4 minus before vfork.
	wall time.Duration
}

// launchReportSize is the report's size: the 4-byte wait status (padded to
// 8), struct rusage (144), and two struct timespec (16 each).
const launchReportSize = 8 + 144 + 16 + 16

// decodeLaunchReport reads a launcher's report, in the machine's byte
// order. A clock that went backwards or a nanosecond field out of range is
// an error: the report is not the launcher's.
func decodeLaunchReport(b []byte) (launchReport, error) {
	if len(b) != launchReportSize {
		return launchReport{}, fmt.Errorf("a report of %d bytes, not %d", len(b), launchReportSize)
	}
	var r launchReport
	r.status = syscall.WaitStatus(binary.NativeEndian.Uint32(b))
	binary.Read(bytes.NewReader(b[8:152]), binary.NativeEndian, &r.usage)
	var ts [4]int64 // start sec, nsec; end sec, nsec
	binary.Read(bytes.NewReader(b[152:]), binary.NativeEndian, &ts)
	for _, ns := range []int64{ts[1], ts[3]} {
		if ns < 0 || ns >= 1e9 {
			return launchReport{}, fmt.Errorf("a clock reading with %d nanoseconds", ns)
		}
	}
	secs := ts[2] - ts[0]
	if secs > 1<<32 {
		return launchReport{}, fmt.Errorf("a window of %d s", secs)
	}
	r.wall = time.Duration(secs)*time.Second + time.Duration(ts[3]-ts[1])
	if r.wall < 0 {
		return launchReport{}, fmt.Errorf("a clock that went backwards (%v)", r.wall)
	}
	return r, nil
}
