package proctest

import (
	"os"
	"os/exec"
	"slices"
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
