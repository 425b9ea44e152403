package child

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

// TestParentDeathSurvivesThreadChurn: a program started with Start keeps
// running while the goroutine that asked for it goes away and the runtime
// ends threads (goroutines that exit locked to theirs), and
// it runs in a process group of its own that Kill ends. (The race the
// locked forking thread closes — the goroutine moving to another thread
// between fork and wait, and the forking thread then ending — is too rare
// to provoke here; this checks the contract around it.)
func TestParentDeathSurvivesThreadChurn(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	var wait func() error
	var err error
	ready := make(chan struct{})
	go func() {
		runtime.LockOSThread() // exits locked: this thread ends
		wait, err = Start(cmd)
		close(ready)
	}()
	<-ready
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ { // end more threads
		done := make(chan struct{})
		go func() { runtime.LockOSThread(); close(done) }()
		<-done
	}
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscallZero); err != nil {
		t.Fatalf("the child died with a thread of ours: %v", err)
	}
	pgid, err := pgidOf(cmd.Process.Pid)
	if err != nil || pgid != cmd.Process.Pid {
		t.Errorf("child's process group %d (%v), want its own %d", pgid, err, cmd.Process.Pid)
	}
	Kill(cmd)
	if err := wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("wait after Kill: %v", err)
	}
}

func TestStartError(t *testing.T) {
	if _, err := Start(exec.Command("/nonexistent/program")); err == nil {
		t.Fatal("a missing program started")
	}
}

// pgidOf reads field 5 of /proc/PID/stat.
func pgidOf(pid int) (int, error) {
	pfs, err := procfs.NewFS("/proc")
	if err != nil {
		return 0, err
	}
	p, err := pfs.Proc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	return st.PGRP, err
}
