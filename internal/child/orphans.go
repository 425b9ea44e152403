package child

import (
	"os"
	"sync"
	"syscall"
	"unsafe"

	"github.com/prometheus/procfs"
)

// A program's process group dies with it (Kill), but a descendant that
// leaves the group (setpgid(2), setsid(2): a daemon, `setsid sleep`) would,
// once its parent ends, be adopted by init and outlive sectax. So sectax is
// a child subreaper (PR_SET_CHILD_SUBREAPER, set on the first Start): such
// an orphan is reparented to sectax instead, and each time a program
// sectax started exits, every adopted orphan is killed and reaped
// (killOrphans), before the program's output is waited for.
//
// An adopted orphan is a child of sectax that sectax did not start through
// Start and that is in another session than sectax's own. Every program
// Start starts leads a session of its own, and no descendant of it can
// come back into sectax's session (a process joins a session only by being
// forked in it), so each of its descendants is told apart from the
// processes the workloads fork themselves (workers, spawn's programs),
// which stay in sectax's session whatever their group; the programs Start
// started are known by pid.

var (
	// mu is held while a program is started and registered, and while
	// orphans are looked for, so that a child just forked is never taken
	// for one.
	mu       sync.Mutex
	started  = map[int]bool{}
	reaperOK bool
	reaper   sync.Once
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// becomeSubreaper makes sectax the subreaper of its descendants, once.
func becomeSubreaper() {
	reaper.Do(func() {
		_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
		reaperOK = e == 0
	})
}

// register records pid as a program Start started (held: mu).
func register(pid int) { started[pid] = true }

// forget forgets pid, reaped.
func forget(pid int) {
	mu.Lock()
	delete(started, pid)
	mu.Unlock()
}

// waitExited returns once pid, a child, has exited, leaving it to be
// reaped by its own Wait (waitid(2) with WNOWAIT).
func waitExited(pid int) {
	const pPID, wExited, wNoWait = 1, 4, 0x1000000
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)), wExited|wNoWait, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}

// killOrphans kills and reaps every adopted orphan (see above), then the
// orphans their death leaves in turn.
func killOrphans() {
	if !reaperOK {
		return
	}
	pfs, err := procfs.NewFS("/proc")
	if err != nil {
		return
	}
	self, err := pfs.Self()
	if err != nil {
		return
	}
	me, err := self.Stat()
	if err != nil {
		return
	}
	pid := os.Getpid()
	// Each round kills the orphans found; their own children are adopted
	// when they die and found by the next round. A tree deeper than this
	// is left to the next program's end.
	for range 64 {
		mu.Lock()
		var orphans []int
		procs, _ := pfs.AllProcs()
		for _, p := range procs {
			st, err := p.Stat()
			if err != nil || st.PPID != pid || started[p.PID] || st.Session == me.Session {
				continue
			}
			syscall.Kill(p.PID, syscall.SIGKILL)
			orphans = append(orphans, p.PID)
		}
		mu.Unlock()
		if len(orphans) == 0 {
			return
		}
		for _, o := range orphans {
			// Our child now, killed: wait for it alone (never -1, which
			// would take the status of a program os/exec waits for).
			var ws syscall.WaitStatus
			for {
				if _, err := syscall.Wait4(o, &ws, 0, nil); err != syscall.EINTR {
					break
				}
			}
		}
	}
}
