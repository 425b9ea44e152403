package workload

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helpers below are the only I/O the timed paths do: read, write and
// poll system calls on raw, blocking file descriptors, so that the kernel
// sees the same system calls as under perf. They take the entry point:
//
//   - rawSys (syscall.RawSyscall) bypasses the Go scheduler: the cheapest
//     path, but the goroutine keeps its P while blocked, so callers lock
//     their OS thread and size GOMAXPROCS. Used by the parent and by
//     threads, where it matches perf within a few percent.
//   - blockingSys (syscall.Syscall) tells the scheduler the thread may
//     block. Used by messaging worker processes: see sched_messaging.go.
type sysFn func(trap, a1, a2, a3 uintptr) (r1, r2 uintptr, err syscall.Errno)

var (
	rawSys      sysFn = syscall.RawSyscall
	blockingSys sysFn = syscall.Syscall
)

// readFull reads exactly len(b) bytes, retrying short reads and EINTR. A
// zero read (the peer is gone) is io.ErrUnexpectedEOF.
func readFull(sys sysFn, fd int, b []byte) error {
	for off := 0; off < len(b); {
		n, _, e := sys(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[off])), uintptr(len(b)-off))
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return fmt.Errorf("read fd %d: %w", fd, e)
		case n == 0:
			return io.ErrUnexpectedEOF
		}
		off += int(n)
	}
	return nil
}

// writeFull writes all of b, retrying short writes and EINTR.
func writeFull(sys sysFn, fd int, b []byte) error {
	for off := 0; off < len(b); {
		n, _, e := sys(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[off])), uintptr(len(b)-off))
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return fmt.Errorf("write fd %d: %w", fd, e)
		}
		off += int(n)
	}
	return nil
}

// pollIn blocks until fd is readable, as perf's workers wait for the wake
// byte: poll({fd, POLLIN}, 1, -1), retried on EINTR.
func pollIn(sys sysFn, fd int) error {
	pfd := unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	for {
		n, _, e := sys(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return fmt.Errorf("poll fd %d: %w", fd, e)
		}
		if n != 1 {
			return fmt.Errorf("poll fd %d: returned %d", fd, n)
		}
		return nil
	}
}

// errTimeout is returned when a wait outlives its deadline.
var errTimeout = errors.New("timed out")

// readCount reads until want bytes have arrived on fd, waiting at most
// until deadline (zero: no deadline) and giving up when cancelled() is
// true. It is used off the hot path (barriers), through the blocking
// syscall.Syscall entry so that the runtime can run other goroutines.
func readCount(fd int, want int, deadline time.Time, cancelled func() bool) error {
	var buf [512]byte
	for got := 0; got < want; {
		timeout := 200 // ms: how often cancellation is checked
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return errTimeout
			}
			timeout = int(min(left, 200*time.Millisecond) / time.Millisecond)
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, timeout)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("poll fd %d: %w", fd, err)
		}
		if n == 0 {
			if cancelled() {
				return errCancelled
			}
			continue
		}
		m, err := unix.Read(fd, buf[:min(len(buf), want-got)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("read fd %d: %w", fd, err)
		}
		if m == 0 {
			return io.ErrUnexpectedEOF
		}
		got += m
	}
	return nil
}

var errCancelled = errors.New("cancelled")
