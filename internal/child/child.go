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
// process group is there to kill them with the program (Kill).
package child

import (
	"os/exec"
	"runtime"
	"syscall"
)

// Start starts cmd as described above and returns the function that waits
// for it (cmd.Wait's error). cmd.SysProcAttr is set (Setpgid, Pdeathsig);
// other attributes it already has are kept.
func Start(cmd *exec.Cmd) (wait func() error, err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return func() error { return <-done }, nil
}

// Kill sends SIGKILL to cmd's whole process group (what it forked too);
// an empty group is no error.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
