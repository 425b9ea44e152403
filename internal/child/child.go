// Package child starts the external programs sectax runs (timed commands,
// perf, QEMU) so that none outlives sectax: each runs in a process group of
// its own with SIGKILL as its parent-death signal.
//
// The parent-death signal (PR_SET_PDEATHSIG) fires when the *thread* that
// forked the child exits, not the process, and the Go runtime does end
// threads (one whose goroutine exits while locked to it). Start therefore
// forks from a goroutine locked to its OS thread and keeps it locked until
// Wait has returned: the forking thread lives as long as the child, and
// unlocking (rather than exiting locked) returns it to the runtime's pool.
// Descendants the program forks itself do not inherit the signal; the
// program leads a session of its own (setsid(2)), so that every descendant
// stays outside sectax's session whatever it does with its process group
// (setpgid, setsid): its group is killed with the program (Kill), and a
// descendant that left it is adopted by sectax, a child subreaper, and
// killed when the program ends (orphans.go). No wait waits on a pipe: a
// descendant that still holds the program's output (one sectax could not
// adopt) is cut off after cmd.WaitDelay (one second when unset).
//
// Output runs a program to completion and returns what it printed (the
// probes of sysinfo, wslconfig's interop calls, the campaign's systemctl);
// it is the one place besides Start that makes a process, and package
// child is the only one that imports os/exec (internal/layers checks).
package child

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Start starts cmd as described above and returns the function that waits
// for it (cmd.Wait's error). cmd.SysProcAttr is set (Setsid, Pdeathsig; no
// Setpgid, which a session leader cannot do) and cmd.WaitDelay when zero;
// other attributes it already has are kept.
func Start(cmd *exec.Cmd) (wait func() error, err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = false, 0
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = DefaultWaitDelay
	}
	becomeSubreaper()
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		mu.Lock()
		if err := cmd.Start(); err != nil {
			mu.Unlock()
			started <- err
			return
		}
		register(cmd.Process.Pid)
		mu.Unlock()
		started <- nil
		// Once the program has exited (seen without reaping it), kill
		// what left its group before waiting for its output: an adopted
		// orphan may hold the program's output pipes open.
		waitExited(cmd.Process.Pid)
		killOrphans()
		err := cmd.Wait()
		forget(cmd.Process.Pid)
		done <- err
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return func() error { return <-done }, nil
}

// DefaultWaitDelay is how long Start's wait waits for the program's output
// pipes once it has exited, when cmd.WaitDelay is zero.
const DefaultWaitDelay = time.Second

// Kill sends SIGKILL to cmd's whole process group (what it forked too);
// an empty group is no error.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// Options are how Output runs a program.
type Options struct {
	// Dir is the working directory ("" for sectax's own).
	Dir string
	// Env are variables added to sectax's environment (KEY=VALUE).
	Env []string
	// WaitDelay bounds how long Output waits for the program's output
	// pipes once it has exited or ctx has ended (a descendant that keeps
	// them open, a Windows process behind interop); 100 ms when zero.
	WaitDelay time.Duration
	// Combined returns standard error with standard output, interleaved
	// as the program wrote them.
	Combined bool
}

// Output runs name with args as Start does (its own session and process
// group, SIGKILL as the parent-death signal), standard input empty, and returns
// what it printed on standard output. When ctx ends the whole group is
// killed; when the program ends, what is left of its group is killed too,
// so nothing it started outlives the call. A program that fails returns
// an *exec.ExitError whose Stderr holds what it printed there.
func Output(ctx context.Context, opts Options, name string, args ...string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd := Command(ctx, name, args...)
	cmd.Dir = opts.Dir
	if opts.Env != nil {
		cmd.Env = append(os.Environ(), opts.Env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if opts.Combined {
		cmd.Stderr = &stdout
	}
	cmd.WaitDelay = opts.WaitDelay
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 100 * time.Millisecond
	}
	wait, err := Start(cmd)
	if err != nil {
		return nil, err
	}
	err = wait()
	Kill(cmd)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ee.Stderr = stderr.Bytes()
	}
	if err != nil {
		return stdout.Bytes(), err
	}
	return stdout.Bytes(), nil
}

// Cmd is an external program to start with Start; ExitError is how it
// failed. They are os/exec's, named here so that no other package needs
// os/exec.
type (
	Cmd       = exec.Cmd
	ExitError = exec.ExitError
)

// Command is exec.CommandContext whose cancellation kills the program's
// whole process group (Kill) rather than the program alone; start it
// with Start.
func Command(ctx context.Context, name string, args ...string) *Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Cancel = func() error { Kill(cmd); return nil }
	return cmd
}

// LookPath is exec.LookPath: the path of the program name on PATH.
func LookPath(name string) (string, error) { return exec.LookPath(name) }
