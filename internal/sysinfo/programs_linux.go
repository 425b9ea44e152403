//go:build linux

package sysinfo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runProgram runs name with args under ctx (which carries the deadline),
// with extra environment variables, in dir, and returns its standard
// output. Standard input is empty, so a program that asks for input ends.
// WaitDelay makes sure a child that leaves its pipes open (a Windows
// process behind interop) cannot hold Collect past the deadline.
func runProgram(ctx context.Context, env []string, dir, name string, args ...string) ([]byte, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.WaitDelay = 100 * time.Millisecond
	// The program runs in its own process group, and the whole group is
	// killed on timeout and after the program ends, so nothing it started
	// outlives the probe.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return nil, errors.New(name + " printed nothing")
	}
	return out.Bytes(), nil
}

// prctlSpec fills the PR_GET_SPECULATION_CTRL value of one control
// (0 store bypass, 1 indirect branch, 2 L1D flush). unix.Prctl drops the
// return value, so the system call is made directly.
func prctlSpec(sc *SpecCtl, which uintptr) {
	r, _, errno := unix.Syscall6(unix.SYS_PRCTL, unix.PR_GET_SPECULATION_CTRL, which, 0, 0, 0, 0)
	if errno != 0 {
		sc.PrctlError = unix.ErrnoName(errno)
		return
	}
	v := int(r)
	sc.Prctl = &v
	sc.PrctlBits = SpecBits(v)
}
