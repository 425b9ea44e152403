package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// writeWorkloads runs `sectax workloads -o path` in-process.
func writeWorkloads(t *testing.T, path string) (string, int) {
	t.Helper()
	_, errs, code := sectax(t, fixedDeps(nil), "workloads", "-o", path)
	return errs, code
}

// TestOutputCharDevice: `sectax workloads -o /dev/null` (here a null device
// made with mknod) writes through the device and leaves the node alone.
func TestOutputCharDevice(t *testing.T) {
	dev := filepath.Join(t.TempDir(), "null")
	if err := unix.Mknod(dev, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		if errors.Is(err, unix.EPERM) {
			t.Skipf("mknod not permitted here: %v", err)
		}
		t.Fatal(err)
	}
	if errs, code := writeWorkloads(t, dev); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fi, err := os.Lstat(dev)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("the device node was replaced: %v %v", fi.Mode(), err)
	}
	// The real /dev/null too, where we may write it.
	if errs, code := writeWorkloads(t, os.DevNull); code != 0 {
		t.Fatalf("/dev/null: exit %d: %s", code, errs)
	}
	if fi, err := os.Lstat(os.DevNull); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
	}
}

// TestOutputFIFO: a FIFO is written through to its reader and stays a FIFO.
func TestOutputFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if errs, code := writeWorkloads(t, fifo); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	select {
	case s := <-got:
		if !strings.Contains(s, "sched-pipe") {
			t.Errorf("the reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader got nothing")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
}

// TestOutputFIFOInterrupt: waiting for a FIFO's reader ends with Ctrl-C
// (the real command, SIGINT, exit 130).
func TestOutputFIFOInterrupt(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "workloads", "-o", fifo)
	cmd.Env = append(os.Environ(), "SECTAX_CLI_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitBlocked(cmd.Process.Pid, time.Minute)
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, time.Minute); code != ExitInterrupted {
		t.Fatalf("exit %d, want %d", code, ExitInterrupted)
	}
}

// waitExit waits for cmd and returns its exit code, killing it after d.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not exit within %v", cmd.Args, d)
	}
	return -1
}

// TestOutputSymlink: a link (even through a second link, relative) stays a
// link and its final target gets the result.
func TestOutputSymlink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(sub, "report.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	os.Symlink("sub/report.txt", filepath.Join(dir, "l1"))
	os.Symlink(filepath.Join(dir, "l1"), filepath.Join(dir, "l2"))
	// A dangling link gets its target created.
	os.Symlink("sub/new.txt", filepath.Join(dir, "dangling"))
	for _, name := range []string{"l2", "dangling"} {
		if errs, code := writeWorkloads(t, filepath.Join(dir, name)); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link", name)
		}
	}
	for _, f := range []string{target, filepath.Join(sub, "new.txt")} {
		if b, _ := os.ReadFile(f); !strings.Contains(string(b), "sched-pipe") {
			t.Errorf("%s holds %q", f, b)
		}
	}
	os.Symlink("loop", filepath.Join(dir, "loop"))
	if errs, code := writeWorkloads(t, filepath.Join(dir, "loop")); code != 1 || !strings.Contains(errs, "symbolic links") {
		t.Errorf("a link loop: exit %d, %q", code, errs)
	}
}

// TestOutputKeepsMode: an existing 0600 file stays 0600 (and, as root, keeps
// its owner); a new file is 0644; a directory is refused in one line.
func TestOutputKeepsMode(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "private.txt")
	os.WriteFile(private, []byte("old"), 0o600)
	root := os.Geteuid() == 0
	if root {
		if err := os.Chown(private, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if errs, code := writeWorkloads(t, private); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fi, _ := os.Stat(private)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if st := fi.Sys().(*syscall.Stat_t); root && (st.Uid != 65534 || st.Gid != 65534) {
		t.Errorf("owner %d:%d, want 65534:65534", st.Uid, st.Gid)
	}
	fresh := filepath.Join(dir, "new.txt")
	writeWorkloads(t, fresh)
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new file: %v %v", fi, err)
	}
	errs, code := writeWorkloads(t, dir)
	if code != 1 || !strings.Contains(errs, "is a directory: name a file") || strings.Count(errs, "\n") != 1 {
		t.Errorf("directory: exit %d, %q", code, errs)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".sectax-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestOutputPNG: --png DIR writes names sectax chooses inside DIR, so a
// link planted at one (here to a private 0600 file, and a dangling one)
// is replaced by the chart, never followed: its target is untouched and
// nothing is made where the dangling link points (issue 45).
func TestOutputPNG(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	charts := filepath.Join(e.dir, "charts")
	os.MkdirAll(charts, 0o755)
	os.Chmod(charts, os.ModeSticky|0o777)
	real := filepath.Join(t.TempDir(), "private")
	os.WriteFile(real, []byte("private"), 0o600)
	os.Symlink(real, filepath.Join(charts, "impact.png"))
	if code, _, stderr := e.run("compare", "on", "off", "--format", "md", "--png", charts); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(filepath.Join(charts, "impact.png")); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		t.Fatalf("impact.png is not the chart: %v %v", fi, err)
	}
	if b, err := os.ReadFile(real); err != nil || string(b) != "private" {
		t.Errorf("the link's target was written: %q %v", b, err)
	}
}

// TestOutputMagicLink: -o /dev/fd/N (a shell's >(…)) or /proc/self/fd/N of
// a pipe writes into the pipe.
func TestOutputMagicLink(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string, 1)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	errs, code := writeWorkloads(t, fmt.Sprintf("/proc/self/fd/%d", w.Fd()))
	w.Close()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if s := <-got; !strings.Contains(s, "sched-pipe") {
		t.Errorf("the pipe got %q", s)
	}
}
