// Package proctest reads the process table from /proc, for tests that check
// that no process was left behind (no orphan, no live group member).
package proctest

import (
	"time"

	"github.com/prometheus/procfs"
)

// Proc is one line of the process table.
type Proc struct {
	PID, PPID, PGID int
	// State is the state letter of /proc/PID/stat ("Z" for a zombie).
	State string
}

// List returns every process whose /proc/PID/stat could be read.
func List() []Proc {
	var out []Proc
	pfs, err := procfs.NewFS("/proc")
	if err != nil {
		return nil
	}
	procs, _ := pfs.AllProcs()
	for _, p := range procs {
		if st, err := p.Stat(); err == nil {
			out = append(out, Proc{PID: p.PID, PPID: st.PPID, PGID: st.PGRP, State: st.State})
		}
	}
	return out
}

// read is pid's line of the process table (procfs parses /proc/PID/stat).
func read(pid int) (Proc, bool) {
	pfs, err := procfs.NewFS("/proc")
	if err != nil {
		return Proc{}, false
	}
	p, err := pfs.Proc(pid)
	if err != nil {
		return Proc{}, false
	}
	st, err := p.Stat()
	if err != nil {
		return Proc{}, false
	}
	return Proc{PID: pid, PPID: st.PPID, PGID: st.PGRP, State: st.State}, true
}

// State returns the state letter of pid ("" when it is gone).
func State(pid int) string {
	p, _ := read(pid)
	return p.State
}

// Children lists the processes whose parent is ppid, zombies included.
func Children(ppid int) []int {
	var out []int
	for _, p := range List() {
		if p.PPID == ppid {
			out = append(out, p.PID)
		}
	}
	return out
}

// LiveChildren lists the children of ppid that are not zombies.
func LiveChildren(ppid int) []int {
	var out []int
	for _, p := range List() {
		if p.PPID == ppid && p.State != "Z" {
			out = append(out, p.PID)
		}
	}
	return out
}

// GroupMembers lists the live processes of process group pgid.
func GroupMembers(pgid int) []int {
	var out []int
	for _, p := range List() {
		if p.PGID == pgid && p.State != "Z" {
			out = append(out, p.PID)
		}
	}
	return out
}

// Descendants counts the processes below pid, from one reading of the
// process table (walking it again for every child made a count of 40 busy
// workers take seconds).
func Descendants(pid int) int {
	kids := map[int][]int{}
	for _, p := range List() {
		kids[p.PPID] = append(kids[p.PPID], p.PID)
	}
	seen := map[int]bool{pid: true} // a table read while PIDs are reused may loop
	n := 0
	var walk func(int)
	walk = func(pid int) {
		for _, c := range kids[pid] {
			if !seen[c] {
				seen[c] = true
				n++
				walk(c)
			}
		}
	}
	walk(pid)
	return n
}

// Eventually polls cond for up to a minute and reports whether it came
// to hold (it returns as soon as it does). It is for a state a process
// reaches by itself: a SIGKILLed process dies when it is next scheduled,
// which on a loaded machine can be a moment after kill returned, and
// then takes a moment to leave /proc. A test never waits with it for
// something it could be told of.
func Eventually(cond func() bool) bool {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// Gone reports whether pid has exited: no longer in /proc, or a zombie
// its parent has not reaped yet.
func Gone(pid int) bool {
	st := State(pid)
	return st == "" || st == "Z" || st == "X"
}
