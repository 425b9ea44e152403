package child

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sectax/sectax/internal/proctest"
)

// TestOutput: standard output comes back, standard error rides on the
// exit error, the environment and folder are the ones asked for.
func TestOutput(t *testing.T) {
	dir := t.TempDir()
	out, err := Output(context.Background(), Options{Dir: dir, Env: []string{"SECTAX_CHILD=yes"}}, "sh", "-c", `echo "$SECTAX_CHILD $(pwd)"`)
	if err != nil || strings.TrimSpace(string(out)) != "yes "+dir {
		t.Fatalf("%q, %v", out, err)
	}
	out, err = Output(context.Background(), Options{}, "sh", "-c", "echo out; echo err >&2; exit 3")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || string(ee.Stderr) != "err\n" || string(out) != "out\n" {
		t.Fatalf("%q, %v", out, err)
	}
	if _, err := Output(context.Background(), Options{}, "/nonexistent/program"); err == nil {
		t.Fatal("a missing program ran")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Output(ctx, Options{}, "true"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled context: %v", err)
	}
}

// TestOutputKillsGroup: when the context ends, the program and what it
// started in the background are killed, and Output returns although the
// background child holds the output pipe open. The shell tells its pid
// through a FIFO; the context is cancelled once it has.
func TestOutputKillsGroup(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Output(ctx, Options{}, "sh", "-c", `sleep 30 & echo $$ > `+fifo+`; wait`)
		done <- err
	}()
	b, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid %q: %v", b, err)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the program outlived its context")
	}
	// Killed members may linger as zombies until init reaps them, and a
	// killed member that was runnable dies when it is next scheduled;
	// none may go on running.
	if !proctest.Eventually(func() bool { return len(proctest.GroupMembers(pid)) == 0 }) {
		t.Errorf("processes %v of the group are still running a minute after Output returned", proctest.GroupMembers(pid))
	}
}
