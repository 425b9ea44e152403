package workload

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/proctest"
)

func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{max: 17}
	tb.Write([]byte("first line\nsecond\n"))
	tb.Write([]byte("\nthird\n  \n"))
	if got, want := string(tb.b), "second\n\nthird\n  \n"; got != want {
		t.Fatalf("kept %q, want %q", got, want)
	}
	if got, want := tb.lastLines(2), "second | third"; got != want {
		t.Fatalf("lastLines(2) = %q, want %q", got, want)
	}
	if got, want := tb.lastLines(5), "second | third"; got != want {
		t.Fatalf("lastLines(5) = %q, want %q", got, want)
	}
	tb.Write([]byte("x"))
	if got, want := tb.lastLines(5), "econd | third | x"; got != want {
		t.Fatalf("after overflow lastLines = %q, want %q", got, want)
	}
	if got := (&tailBuffer{max: 8}).lastLines(3); got != "" {
		t.Fatalf("empty lastLines = %q", got)
	}
}

func TestRunTimedTrue(t *testing.T) {
	path, err := lookProgram("test", "true")
	if err != nil {
		t.Skip(err)
	}
	s, err := runTimed(context.Background(), timedChild{path: path, argv: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	checkFinite(t, Cmd{}, s, "user_s", "sys_s", "cpu_pct", "nvcsw", "nivcsw")
	if s.Values["max_rss_kb"] < 100 {
		t.Errorf("max_rss_kb = %v, want the RSS of a real process", s.Values["max_rss_kb"])
	}
	if w := s.Values["wall_s"]; w > 10 {
		t.Errorf("wall_s = %v for true", w)
	}
}

// A command's background jobs are killed when it exits.
func TestRunTimedKillsLeftovers(t *testing.T) {
	sh, err := lookProgram("test", "sh")
	if err != nil {
		t.Skip(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	_, err = runTimed(context.Background(), timedChild{path: sh,
		argv: []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !proctest.Eventually(func() bool { return proctest.Gone(pid) }) {
		t.Fatalf("background sleep %d survived its command (state %s)", pid, proctest.State(pid))
	}
}

func TestRunTimedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := runTimed(ctx, timedChild{path: "/bin/true", argv: []string{"true"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRunTimedMissingProgram(t *testing.T) {
	_, err := runTimed(context.Background(), timedChild{path: "/nonexistent/prog", argv: []string{"prog"}})
	assertUsage(t, err, "/nonexistent/prog")
}

func TestRunTimedMissingDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	_, err := runTimed(context.Background(), timedChild{path: "/bin/true", argv: []string{"true"}, dir: missing})
	assertUsage(t, err, missing)
}

func TestRunTimedDeadline(t *testing.T) {
	sh, err := lookProgram("test", "sh")
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = runTimed(ctx, timedChild{path: sh, argv: []string{"sh", "-c", "sleep 600"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	// Well under the child's 10 minutes is the deadline honoured, however
	// busy the machine.
	if d := time.Since(start); d > 2*time.Minute {
		t.Fatalf("took %v after the deadline", d)
	}
}

// A temporary directory that cannot be removed is reported, not ignored.
func TestRemoveTemp(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "tmp")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var s Sample
	var err error
	removeTemp(dir, &s, &err)
	if err != nil || len(s.Warnings) != 0 {
		t.Fatalf("clean removal: err %v, warnings %q", err, s.Warnings)
	}
	if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
		t.Fatalf("%s still exists", dir)
	}
	// A path whose parent is a regular file cannot be removed (ENOTDIR).
	file := filepath.Join(parent, "file")
	os.WriteFile(file, nil, 0o644)
	bad := filepath.Join(file, "x")
	removeTemp(bad, &s, &err)
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], bad) {
		t.Fatalf("warnings %q, want one naming %s", s.Warnings, bad)
	}
	err = errors.New("build failed")
	removeTemp(bad, &s, &err)
	if !strings.Contains(err.Error(), "build failed") || !strings.Contains(err.Error(), bad) {
		t.Fatalf("err %v, want the failure and the directory", err)
	}
}

// max_rss_kb is the command's own peak, not the image of sectax (here the
// test binary, made large on purpose) that a vfork-style clone lends the
// child until its execve; a command that touches 64 MiB reports them.
func TestRunTimedOwnPeak(t *testing.T) {
	if _, err := launchProgram.Path(); err != nil {
		t.Skip(err)
	}
	ballast := make([]byte, 96<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	small, err := runTimed(context.Background(), timedChild{path: "/bin/sh", argv: []string{"sh", "-c", "exit 0"}})
	if err != nil {
		t.Fatal(err)
	}
	if kb := small.Values["max_rss_kb"]; kb <= 0 || kb > 16<<10 {
		t.Errorf("sh -c 'exit 0': max_rss_kb %v, want its own few MiB (the parent holds 96 MiB)", kb)
	}
	if len(small.Warnings) != 1 || small.Warnings[0] != noteLauncher {
		t.Errorf("the run must say how max_rss_kb was measured: %q", small.Warnings)
	}
	dd, err := exec.LookPath("dd")
	if err != nil {
		t.Skip(err)
	}
	big, err := runTimed(context.Background(), timedChild{path: dd, argv: []string{"dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if kb := big.Values["max_rss_kb"]; kb < 64<<10 || kb > 80<<10 {
		t.Errorf("dd bs=64M: max_rss_kb %v, want 64–80 MiB", kb)
	}
	runtime.KeepAlive(ballast)
	// A command killed by a signal is reported as such through the launcher.
	_, err = runTimed(context.Background(), timedChild{path: "/bin/sh", argv: []string{"sh", "-c", "kill -9 $$"}})
	if err == nil || !strings.Contains(err.Error(), "killed by signal 9") {
		t.Errorf("err = %v, want killed by signal 9", err)
	}
}
