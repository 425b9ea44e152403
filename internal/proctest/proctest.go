// Package proctest reads the process table from /proc, for tests that check
// that no process was left behind (no orphan, no live group member).
package proctest

import (
	"os"
	"strconv"
	"strings"
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
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := read(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// read parses /proc/PID/stat past the command name, which may hold spaces
// and parentheses.
func read(pid int) (Proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[3])
	return Proc{PID: pid, PPID: ppid, PGID: pgid, State: f[0]}, true
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

// Descendants counts the processes below pid.
func Descendants(pid int) int {
	n := 0
	for _, c := range Children(pid) {
		n += 1 + Descendants(c)
	}
	return n
}
