package workload

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/proctest"
	"github.com/sectax/sectax/internal/testutil"
)

// script returns a launcher report as the launcher writes it.
func scriptReport(status uint32, ru syscall.Rusage, start, end [2]int64) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.NativeEndian, status)
	binary.Write(&b, binary.NativeEndian, uint32(0))
	binary.Write(&b, binary.NativeEndian, &ru)
	binary.Write(&b, binary.NativeEndian, start)
	binary.Write(&b, binary.NativeEndian, end)
	return b.Bytes()
}

func TestDecodeLaunchReport(t *testing.T) {
	ru := syscall.Rusage{Maxrss: 1234, Nvcsw: 7}
	ru.Utime.Usec, ru.Stime.Usec = 1500, 250
	r, err := decodeLaunchReport(scriptReport(0x0300, ru, [2]int64{100, 999_000_000}, [2]int64{101, 1_500_000}))
	if err != nil {
		t.Fatal(err)
	}
	// The window is end minus start across a second boundary.
	if r.wall != 2_500_000*time.Nanosecond {
		t.Errorf("wall %v, want 2.5ms", r.wall)
	}
	if !r.status.Exited() || r.status.ExitStatus() != 3 {
		t.Errorf("status %#x, want exited 3", uint32(r.status))
	}
	if r.usage.Maxrss != 1234 || r.usage.Nvcsw != 7 || r.usage.Utime.Usec != 1500 || r.usage.Stime.Usec != 250 {
		t.Errorf("rusage %+v", r.usage)
	}
	for name, b := range map[string][]byte{
		"backwards":  scriptReport(0, ru, [2]int64{101, 0}, [2]int64{100, 0}),
		"bad nsec":   scriptReport(0, ru, [2]int64{100, 1_000_000_000}, [2]int64{101, 0}),
		"huge":       scriptReport(0, ru, [2]int64{0, 0}, [2]int64{1 << 40, 0}),
		"short":      scriptReport(0, ru, [2]int64{0, 0}, [2]int64{0, 0})[:launchReportSize-1],
		"old format": scriptReport(0, ru, [2]int64{0, 0}, [2]int64{0, 0})[:8+144],
	} {
		if _, err := decodeLaunchReport(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// The bytes of launchCode are the assembled testdata/launch_amd64.s.
func TestLaunchCodeAssembles(t *testing.T) {
	as, err := exec.LookPath("as")
	if err != nil {
		testutil.Need(t, "no assembler (binutils): %v", err)
	}
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		testutil.Need(t, "no objcopy (binutils): %v", err)
	}
	dir := t.TempDir()
	obj, bin := filepath.Join(dir, "l.o"), filepath.Join(dir, "l.bin")
	if out, err := exec.Command(as, "--64", "-o", obj, "testdata/launch_amd64.s").CombinedOutput(); err != nil {
		t.Skipf("as cannot assemble x86-64 here: %v %s", err, out)
	}
	if out, err := exec.Command(objcopy, "-O", "binary", "-j", ".text", obj, bin).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v %s", err, out)
	}
	got, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, launchCode["amd64"]) {
		t.Fatalf("testdata/launch_amd64.s assembles to\n% x\nnot launchCode[amd64]\n% x", got, launchCode["amd64"])
	}
}

// burnPrefix is machine code run before the launcher's own: about 5×10⁸
// iterations of dec/jnz (0.1 s of CPU or more on any machine) before its
// clock starts, a launcher start-up made slow on purpose.
var burnPrefix = []byte{
	0x48, 0xc7, 0xc1, 0x00, 0x65, 0xcd, 0x1d, // mov rcx, 500000000
	0x48, 0xff, 0xc9, // 1: dec rcx
	0x75, 0xfb, // jnz 1b
}

func cpuOf(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// What the launcher does before it starts the clock (here a deliberately
// slow start-up), like sectax's own start of the launcher, is outside the
// command's window, and the rusage of the sample is the command's, not the
// launcher's. No timing is assumed: the checks compare what one repetition
// measured with the CPU time the kernel accounted to the launcher.
func TestLaunchTimesOnlyTheCommand(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the launcher is x86-64 only")
	}
	slow := &tinyProgram{name: "sectax-launch-slow", code: tinyCode{"amd64": append(append([]byte{}, burnPrefix...), launchCode["amd64"]...)}}
	begin := time.Now()
	r, err := launch(context.Background(), timedChild{path: "/bin/true", argv: []string{"true"}}, slow)
	elapsed := time.Since(begin)
	if err != nil {
		t.Fatal(err)
	}
	if !r.byLauncher || r.usage == nil || r.launcher == nil {
		t.Fatalf("not measured by the launcher: %+v", r)
	}
	// The launcher's rusage (sectax's wait) holds its own work and the
	// command's; the difference is the launcher's own, mostly the burn.
	own := cpuOf(r.launcher) - cpuOf(r.usage)
	if own < 20*time.Millisecond {
		t.Fatalf("the launcher used %v of CPU besides the command's (launcher %v, command %v): the command's rusage holds the launcher's burn, or the burn did not run", own, cpuOf(r.launcher), cpuOf(r.usage))
	}
	// The command's rusage is /bin/true's few milliseconds, not the burn.
	if c := cpuOf(r.usage); c > cpuOf(r.launcher)/2 {
		t.Errorf("the command's CPU %v is most of the launcher's %v: the rusage is the launcher's", c, cpuOf(r.launcher))
	}
	// elapsed ≥ the burn's wall ≥ its CPU, and the window comes after it:
	// the window fits in what is left (the slack covers the launcher's
	// vfork and wait4 inside the window, and the rusage's microseconds).
	if room := elapsed - own + 5*time.Millisecond; r.wall > room {
		t.Errorf("window %v > %v (%v elapsed in sectax − %v of the launcher's own CPU): the launcher's start-up was timed", r.wall, room, elapsed, own)
	}
	if r.note != noteLauncher {
		t.Errorf("note %q, want %q", r.note, noteLauncher)
	}
}

// Without a launcher sectax times the start and the wait itself and says
// that both figures are upper bounds.
func TestLaunchWithoutLauncher(t *testing.T) {
	none := &tinyProgram{name: "sectax-launch-none", code: tinyCode{}}
	for name, lp := range map[string]*tinyProgram{"nil": nil, "no code": none} {
		r, err := launch(context.Background(), timedChild{path: "/bin/true", argv: []string{"true"}}, lp)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.byLauncher || r.wall <= 0 || r.usage != r.launcher || r.usage == nil {
			t.Errorf("%s: %+v", name, r)
		}
		if !strings.HasPrefix(r.note, noteNoLauncher) {
			t.Errorf("%s: note %q", name, r.note)
		}
	}
	if _, err := launch(context.Background(), timedChild{path: "/bin/false", argv: []string{"false"}}, nil); err == nil ||
		!strings.Contains(err.Error(), "exited with status 1") {
		t.Errorf("false without a launcher: %v", err)
	}
}

// A program reading sectax's output is waited for while it runs (its
// start-up) and not once it sleeps in its read; a file has no reader.
func TestAwaitReaders(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	start := func(script string) *exec.Cmd {
		c := exec.Command("/bin/sh", "-c", script)
		c.Stdin = r
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	busy := start("while :; do :; done")
	note := awaitReaders(context.Background(), []*os.File{w}, 300*time.Millisecond)
	if want := "pid " + strconv.Itoa(busy.Process.Pid); !strings.Contains(note, want) {
		t.Errorf("a busy reader: note %q, want one naming %s", note, want)
	}
	// Ctrl-C ends the wait at once, with no note: the repetition then
	// sees the cancelled context.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if note := awaitReaders(ctx, []*os.File{w}, 2*time.Second); note != "" {
		t.Errorf("a cancelled wait: note %q, want none", note)
	}
	busy.Process.Kill()
	busy.Wait()
	// A reader blocked in read(2) is asleep (state S): no wait, no note.
	sleeper := start("read line")
	if !proctest.Eventually(func() bool { return proctest.State(sleeper.Process.Pid) == "S" }) {
		t.Fatalf("reader %d never slept", sleeper.Process.Pid)
	}
	if note := awaitReaders(context.Background(), []*os.File{w}, time.Minute); note != "" {
		t.Errorf("a sleeping reader: note %q", note)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if note := awaitReaders(context.Background(), []*os.File{f, nil}, time.Minute); note != "" {
		t.Errorf("a file: note %q", note)
	}
}

// TestLaunchNotesFit: what a run says of how a timed command was measured
// is one line of at most 100 columns under its workload's name, the
// fallback's reason included (the detail is in docs/workloads.md).
func TestLaunchNotesFit(t *testing.T) {
	for _, note := range []string{noteLauncher, noteNoLauncher + " (no launcher)"} {
		for _, id := range []string{"go-build", "cmd"} {
			if line := "  " + id + ": " + note; strings.Contains(line, "\n") || utf8.RuneCountInString(line) > 100 {
				t.Errorf("%d columns: %q", utf8.RuneCountInString(line), line)
			}
		}
	}
}
