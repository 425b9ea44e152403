package workload

import (
	"fmt"
	"syscall"
	"unsafe"
)

// Forked workers: perf's own way. perf fork()s its workers, so each is a
// copy of perf running a tight C loop, and each one's exit tears down a
// copy-on-write image of perf. A Go program cannot run Go code after a bare
// fork (the runtime's other threads are gone), but it can run code that
// never enters the runtime: the functions below are nosplit (no stack
// check, so no morestack), norace (no race-detector hooks), allocate
// nothing, take no locks and make only raw system calls. All signals are
// blocked across the clone, so no Go signal handler ever runs in the child,
// which ends with exit_group. This is the same discipline as
// syscall.forkAndExecInChild, minus the exec.

// forkMsg describes one forked worker: a messaging sender or receiver, or
// worker 0 of sched-pipe.
type forkMsg struct {
	kind                    forkKind
	readFirst               bool // pipe: ping-pong (true) or symmetric
	readyFD, wakeFD, doneFD int
	pgid                    int
	parent                  int // the parent's pid: the child exits if it is gone
	closeFD                 int // a descriptor the worker closes first (-1: none)
	in                      int
	outs                    [msgFanout]int
	nOuts                   int
	count                   int64 // messages to receive, loops to send, or pipe round trips
	goFD                    int   // pipe: the go byte arrives here
}

type forkKind int

const (
	forkReceiver forkKind = iota
	forkSender
	forkPipe
)

// forkWorker forks a worker described by a and returns its pid in
// the parent. The caller holds its OS thread locked.
//
//go:norace
func forkWorker(a *forkMsg) (int, error) {
	var all, old uint64 = ^uint64(0), 0
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 2 /* SIG_SETMASK */, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	pid, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if e == 0 && pid == 0 {
		forkedMain(a) // never returns
	}
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 2, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	if e != 0 {
		return 0, fmt.Errorf("fork: %w", e)
	}
	// Set the group from this side too, so that a kill of the group cannot
	// miss a child that has not run yet.
	syscall.Setpgid(int(pid), a.pgid)
	return int(pid), nil
}

// fork starts a forked worker in the group.
func (g *procGroup) fork(a *forkMsg) error {
	a.pgid, a.parent = int(g.pgid.Load()), syscall.Getpid()
	pid, err := forkWorker(a)
	if err != nil {
		return err
	}
	g.pgid.CompareAndSwap(0, int64(pid))
	g.pids = append(g.pids, pid)
	return nil
}

// forkedMain is the whole life of a forked worker.
//
//go:nosplit
//go:norace
func forkedMain(a *forkMsg) {
	syscall.RawSyscall(syscall.SYS_SETPGID, 0, uintptr(a.pgid), 0)
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0)
	if ppid, _, _ := syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0); int(ppid) != a.parent {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 1, 0, 0)
	}
	if a.closeFD >= 0 {
		syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(a.closeFD), 0, 0)
	}
	var ok bool
	if a.kind == forkPipe {
		ok = forkedPipeWork(a)
	} else {
		ok = forkedMessagingWork(a)
	}
	status := uintptr(0)
	if !ok {
		status = 1
	}
	for {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, status, 0, 0)
	}
}

//go:nosplit
//go:norace
func forkedMessagingWork(a *forkMsg) bool {
	var b [msgDataSize]byte
	b[0] = 'R'
	if !nsWrite(a.readyFD, &b[0], 1) || !nsPollIn(a.wakeFD) {
		return false
	}
	if a.kind == forkSender {
		for i := range b {
			b[i] = 'S'
		}
		for l := int64(0); l < a.count; l++ {
			for j := 0; j < a.nOuts; j++ {
				if !nsWrite(a.outs[j], &b[0], msgDataSize) {
					return false
				}
			}
		}
	} else {
		for i := int64(0); i < a.count; i++ {
			if !nsRead(a.in, &b[0], msgDataSize) {
				return false
			}
		}
	}
	b[0] = 'D'
	return nsWrite(a.doneFD, &b[0], 1)
}

// forkedPipeWork is sched-pipe's worker 0: ready, wait for the go byte,
// then loops round trips reading in (pipe 1) and writing out (pipe 2).
//
//go:nosplit
//go:norace
func forkedPipeWork(a *forkMsg) bool {
	var b [4]byte
	if !nsWrite(a.readyFD, &b[0], 1) || !nsRead(a.goFD, &b[0], 1) {
		return false
	}
	for i := int64(0); i < a.count; i++ {
		if a.readFirst {
			if !nsRead(a.in, &b[0], 4) || !nsWrite(a.outs[0], &b[0], 4) {
				return false
			}
		} else if !nsWrite(a.outs[0], &b[0], 4) || !nsRead(a.in, &b[0], 4) {
			return false
		}
	}
	return true
}

//go:nosplit
//go:norace
func nsWrite(fd int, p *byte, n int) bool {
	for off := 0; off < n; {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(p))+uintptr(off), uintptr(n-off))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return false
		}
		off += int(r)
	}
	return true
}

//go:nosplit
//go:norace
func nsRead(fd int, p *byte, n int) bool {
	for off := 0; off < n; {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(p))+uintptr(off), uintptr(n-off))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 || r == 0 {
			return false
		}
		off += int(r)
	}
	return true
}

// pollFD is struct pollfd.
type pollFD struct {
	fd      int32
	events  int16
	revents int16
}

//go:nosplit
//go:norace
func nsPollIn(fd int) bool {
	p := pollFD{fd: int32(fd), events: 1 /* POLLIN */}
	for {
		n, _, e := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, 0, 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		return e == 0 && n == 1
	}
}
