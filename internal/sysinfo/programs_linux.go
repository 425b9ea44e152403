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

// PrctlSpecCtl asks the kernel for the calling thread's speculation
// control which (0 store bypass, 1 indirect branch, 2 L1D flush): the
// PR_GET_SPECULATION_CTRL bits (SpecBits names them). It is the one caller
// of that prctl; the snapshot and the workloads' --spec checks both ask it.
func PrctlSpecCtl(which int) (int, error) {
	return unix.PrctlRetInt(unix.PR_GET_SPECULATION_CTRL, uintptr(which), 0, 0, 0)
}

// prctlSpec fills the PR_GET_SPECULATION_CTRL value of one control.
func prctlSpec(sc *SpecCtl, which int) {
	v, err := PrctlSpecCtl(which)
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			sc.PrctlError = unix.ErrnoName(errno)
		} else {
			sc.PrctlError = err.Error()
		}
		return
	}
	sc.Prctl = &v
	sc.PrctlBits = SpecBits(v)
}

// unameMachine is the running kernel's utsname machine ("x86_64"), ""
// when uname fails.
func unameMachine() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Machine[:])
}
