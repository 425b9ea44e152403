//go:build linux

package sysinfo

import (
	"context"
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/child"
)

// runProgram runs name with args under ctx (which carries the deadline),
// with extra environment variables, in dir, and returns its standard
// output (child.Output: standard input empty, so a program that asks for
// input ends; its own process group, killed on timeout and after the
// program ends, so nothing it started outlives the probe; a short wait
// delay, so a child that leaves its pipes open (a Windows process behind
// interop) cannot hold Collect past the deadline).
func runProgram(ctx context.Context, env []string, dir, name string, args ...string) ([]byte, error) {
	out, err := child.Output(ctx, child.Options{Dir: dir, Env: env, WaitDelay: 100 * time.Millisecond}, name, args...)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New(name + " printed nothing")
	}
	return out, nil
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
