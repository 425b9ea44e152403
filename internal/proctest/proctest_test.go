package proctest

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
)

func TestSeesARealChild(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	pid := cmd.Process.Pid
	if !slices.Contains(Children(os.Getpid()), pid) || !slices.Contains(LiveChildren(os.Getpid()), pid) {
		t.Errorf("child %d not listed", pid)
	}
	if Descendants(os.Getpid()) < 1 || State(pid) == "" {
		t.Errorf("descendants %d, state %q", Descendants(os.Getpid()), State(pid))
	}
	me, _ := read(os.Getpid())
	if !slices.Contains(GroupMembers(me.PGID), os.Getpid()) {
		t.Error("this process is not in its own group's members")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if slices.Contains(Children(os.Getpid()), pid) || State(pid) != "" {
		t.Errorf("reaped child %d still listed", pid)
	}
}

// TestDescendantsCountsGrandchildren: a shell and the sleep it started
// are two processes below this one.
func TestDescendantsCountsGrandchildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() {
		for _, p := range List() {
			if p.PPID == cmd.Process.Pid {
				syscall.Kill(p.PID, syscall.SIGKILL)
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if !Eventually(func() bool { return Descendants(os.Getpid()) >= 2 }) {
		t.Fatalf("descendants %d, want the shell and its sleep", Descendants(os.Getpid()))
	}
	if n := Descendants(cmd.Process.Pid); n != 1 {
		t.Errorf("below the shell: %d, want its sleep alone", n)
	}
}
