package child

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/proctest"
)

// leaveGroup is a shell line that starts `setsid sleep 300` in the
// background, waits (by reading /proc, no sleep) until it is the leader
// of a session of its own, prints its pid and exits: the sleep is then an
// orphan outside the program's group, which Kill cannot reach.
const leaveGroup = `setsid sleep 300 %s & pid=$!
while [ "$(cut -d' ' -f6 /proc/$pid/stat)" != "$pid" ]; do :; done
echo $pid`

func orphanPID(t *testing.T, out []byte) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("no pid printed: %q", out)
	}
	return pid
}

// noChildLeft fails when the test process has a live child (an orphan
// adopted and not killed).
func noChildLeft(t *testing.T) {
	t.Helper()
	if c := proctest.LiveChildren(os.Getpid()); len(c) > 0 {
		t.Errorf("children left: %v", c)
	}
}

// TestSetsidGrandchildDies: a grandchild that left the program's group
// and session with setsid is dead and reaped when Output returns (it was
// adopted by sectax, the subreaper, and killed when the program exited).
func TestSetsidGrandchildDies(t *testing.T) {
	out, err := Output(context.Background(), Options{}, "sh", "-c", strings.ReplaceAll(leaveGroup, "%s", "</dev/null >/dev/null 2>&1"))
	if err != nil {
		t.Fatal(err)
	}
	pid := orphanPID(t, out)
	if !proctest.Gone(pid) {
		t.Errorf("the setsid grandchild %d outlived its program (state %s)", pid, proctest.State(pid))
		syscallKill(pid)
	}
	noChildLeft(t)
}

// TestSetsidTreeDies: an orphan's own children, adopted when it is
// killed, are killed in turn; and Kill (Ctrl-C's path) of a program that
// is still running leaves nothing behind either.
func TestSetsidTreeDies(t *testing.T) {
	// A setsid shell with a child of its own, then the program waits.
	cmd := exec.Command("sh", "-c", `setsid sh -c 'sleep 301 & exec sleep 300' </dev/null >/dev/null 2>&1 & pid=$!
while [ "$(cut -d' ' -f6 /proc/$pid/stat)" != "$pid" ]; do :; done
while ! grep -qs . /proc/$pid/task/$pid/children; do :; done
echo $pid; exec sleep 300`)
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	wait, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("the program printed no pid: %v", err)
	}
	Kill(cmd)
	wait()
	pid := orphanPID(t, []byte(line))
	if !proctest.Gone(pid) {
		t.Errorf("the setsid grandchild %d outlived its killed program", pid)
		syscallKill(pid)
	}
	noChildLeft(t)
}

func syscallKill(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// leavePgrp is leaveGroup's variant that stays in the session: the
// background perl moves to a process group of its own (setpgid(0,0)), keeps
// the program's standard output open and sleeps; the program waits (by
// reading /proc) until it has, prints its pid and exits.
const leavePgrp = `perl -e 'setpgrp(0,0); exec "sleep", 300' & pid=$!
while [ "$(cut -d' ' -f5 /proc/$pid/stat)" != "$pid" ]; do :; done
echo $pid`

// TestGrandchildHoldingOutput: Start as the lab starts QEMU (output into
// a buffer): a grandchild that left the program's group, with setsid (its
// own session) or setpgid (its own group, the same session), and keeps the
// program's standard output open holds Wait neither forever nor until the
// WaitDelay (an hour here): it is killed when the program exits, and the
// program's output is all there.
func TestGrandchildHoldingOutput(t *testing.T) {
	cases := map[string]string{"setsid": strings.ReplaceAll(leaveGroup, "%s", "</dev/null")}
	if _, err := exec.LookPath("perl"); err == nil {
		cases["setpgid"] = leavePgrp
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout bytes.Buffer
			cmd := exec.Command("sh", "-c", script)
			cmd.Stdout = &stdout
			cmd.WaitDelay = time.Hour
			wait, err := Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("Wait still waits on the pipe the grandchild holds")
			}
			pid := orphanPID(t, stdout.Bytes())
			if !proctest.Gone(pid) {
				t.Errorf("the %s grandchild %d outlived its program", name, pid)
				syscallKill(pid)
			}
			noChildLeft(t)
		})
	}
}

// TestWorkerInOwnGroupSurvives: a child sectax forks itself in a process
// group of its own (as the workloads' workers are) is not taken for an
// adopted orphan when a program started by Start exits.
func TestWorkerInOwnGroupSurvives(t *testing.T) {
	worker := exec.Command("sleep", "300")
	worker.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { worker.Process.Kill(); worker.Wait() }()
	if _, err := Output(context.Background(), Options{}, "true"); err != nil {
		t.Fatal(err)
	}
	if proctest.Gone(worker.Process.Pid) {
		t.Error("a worker of sectax's own was killed as an orphan")
	}
}
