package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/safetext"
)

// A hostile guest: the test binary, started by Boot as its QEMU with
// fakeQEMUEnv naming what its "guest" does, writes the channel and the
// console files named on its command line as a guest running a kernel and
// an initramfs that are not sectax's could.
const fakeQEMUEnv = "SECTAX_TEST_FAKE_QEMU"

// fakeQEMULie names how the "snapshot" guest lies.
const fakeQEMULie = "SECTAX_TEST_FAKE_LIE"

// fakeQEMUResult names a file whose bytes the "forge" guest sends as its
// result frame.
const fakeQEMUResult = "SECTAX_TEST_FAKE_RESULT"

const (
	escTitle   = "\x1b]0;owned\x07"
	escRewrite = "\r\x1b[2Ksectax: all boots verified"
)

func fakeQEMUMain(mode string) {
	var console, channel string
	for i, a := range os.Args {
		if a != "-chardev" || i+1 >= len(os.Args) {
			continue
		}
		v := os.Args[i+1]
		if p, ok := strings.CutPrefix(v, "file,id=console,path="); ok {
			console = p
		}
		if p, ok := strings.CutPrefix(v, "file,id=channel,path="); ok {
			channel = p
		}
	}
	open := func(p string) *os.File {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			os.Stderr.WriteString("fake qemu: " + err.Error() + "\n")
			os.Exit(1)
		}
		return f
	}
	con, ch := open(console), open(channel)
	send := func(kind byte, payload string) { ch.Write(EncodeFrame(kind, []byte(payload))) }
	hang := func() { time.Sleep(time.Hour) } // until Boot kills the process group
	noise := bytes.Repeat([]byte("noise from a guest "), 1<<16)
	switch mode {
	case "flood-channel", "flood-console":
		f := ch
		if mode == "flood-console" {
			f = con
		}
		for written := 0; written < 64<<20; written += len(noise) {
			f.Write(noise)
		}
		hang()
	case "flood-frames":
		send(KindHello, `{"release":"6.1.0-fake","task":"measure"}`)
		var b []byte
		for i := 0; i < 20000; i++ {
			b = append(b, EncodeFrame(KindLog, nil)...)
		}
		ch.Write(b)
		hang()
	case "flood-log":
		send(KindHello, `{"release":"6.1.0-fake","task":"measure"}`)
		line := strings.Repeat("x", 4000)
		for i := 0; i < 1000; i++ {
			send(KindLog, line)
		}
		hang()
	case "escapes":
		con.WriteString("[    0.000000] Linux version 6.1.0-fake\n" + escTitle + "kernel says" + escRewrite + "\n")
		send(KindHello, `{"release":"6.1.0-fake`+escTitle+`","task":"measure"}`)
		send(KindLog, "verifying"+escTitle+escRewrite)
		send(KindError, "refused"+escTitle+escRewrite+"\nsecond line")
		send(KindDone, "")
	case "console-only":
		con.WriteString("booting\n" + escTitle + "last" + escRewrite + "\n")
		con.Close()
		os.Exit(1)
	case "forge":
		data, err := os.ReadFile(os.Getenv(fakeQEMUResult))
		if err != nil {
			os.Exit(1)
		}
		send(KindHello, `{"release":"6.1.0-57-amd64","task":"measure"}`)
		send(KindResult, string(data))
		send(KindDone, "")
	case "snapshot":
		// A snapshot task's guest that lies as SECTAX_TEST_FAKE_LIE says.
		appendLine, release := argAfter("-append"), "6.1.0-57-amd64"
		files := map[string]string{"meltdown": "Vulnerable"}
		switch os.Getenv(fakeQEMULie) {
		case "release":
			release = "6.99.0-evil"
		case "cmdline":
			appendLine = "mitigations=off " + appendLine
		case "many":
			for i := 0; i < 100; i++ {
				files[fmt.Sprintf("bug%d", i)] = "Vulnerable"
			}
		case "name":
			files["meltdown\x1b]0;owned\x07"] = "Vulnerable"
		case "huge":
			files["meltdown"] = strings.Repeat("x", 9<<20)
		}
		send(KindHello, `{"release":"`+release+`","task":"snapshot"}`)
		send(KindResult, string(observedPayload(appendLine, release, files)))
		send(KindDone, "")
	case "kvm-fails":
		// As a host whose /dev/kvm opens but cannot run a guest: under kvm
		// an accelerator error; under tcg (where -cpu host is refused, as
		// QEMU does) a guest that reports the line and release passed.
		accel, cpu, appendLine := argAfter("-accel"), argAfter("-cpu"), argAfter("-append")
		if accel == AccelKVM {
			os.Stderr.WriteString("KVM internal error. Suberror: 1\n")
			hang()
		}
		if cpu == "host" {
			os.Stderr.WriteString("qemu: CPU model 'host' requires KVM or HVF\n")
			os.Exit(1)
		}
		send(KindHello, `{"release":"6.1.0-57-amd64","task":"snapshot"}`)
		send(KindResult, string(observedPayload(appendLine, "6.1.0-57-amd64", map[string]string{"meltdown": "Vulnerable"})))
		send(KindDone, "")
	default:
		os.Stderr.WriteString("fake qemu: unknown mode " + mode + "\n")
		os.Exit(1)
	}
	ch.Close()
	con.Close()
	os.Exit(0)
}

// argAfter is the fake QEMU's argument after flag ("" when none).
func argAfter(flag string) string {
	for i, a := range os.Args {
		if a == flag && i+1 < len(os.Args) {
			return os.Args[i+1]
		}
	}
	return ""
}

// fakeBoot boots the test binary as QEMU in mode; the boot's folder is
// under a TMPDIR of its own, returned.
func fakeBoot(t *testing.T, mode string, opts BootOptions) (*BootResult, string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(fakeQEMUEnv, mode)
	opts.QEMU.Binary, opts.QEMU.Accel = exe, AccelTCG
	if opts.Handshake == 0 {
		opts.Handshake = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Boot(ctx, opts)
	return res, tmp, err
}

func assertSafe(t *testing.T, what, s string, keepLines bool) {
	t.Helper()
	for _, r := range s {
		if safetext.Unsafe(r) && !(keepLines && (r == '\n' || r == '\t')) {
			t.Errorf("%s holds %U: %q", what, r, s)
			return
		}
	}
}

// TestBootLimits: a guest that floods its channel, its console, frames or
// log text is stopped at the limit with one line, and the boot's files are
// gone (on main the channel was re-read whole every 100 ms and log frames
// kept without bound: 1.5 GB of noise took the host to 6.9 GB RSS).
func TestBootLimits(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		limits Limits
		want   string
	}{
		{"flood-channel", Limits{Channel: 4 << 20}, "more than 4 MiB on the result channel"},
		{"flood-console", Limits{Console: 4 << 20}, "more than 4 MiB on the console"},
		{"flood-frames", Limits{Frames: 1000}, "more than 1000 frames"},
		{"flood-log", Limits{LogBytes: 256 << 10}, "more than 256 KiB of log frames"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			res, tmp, err := fakeBoot(t, tc.mode, BootOptions{Limits: tc.limits})
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line with %q", err, tc.want)
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "*"))
			if len(left) > 0 {
				t.Errorf("the boot left %v", left)
			}
			if len(res.Logs) > 1000 {
				t.Errorf("%d log frames kept", len(res.Logs))
			}
		})
	}
	// A folder the caller gives keeps nothing of the boot either.
	dir := t.TempDir()
	_, _, err := fakeBoot(t, "flood-channel", BootOptions{Dir: dir, Limits: Limits{Channel: 1 << 20}})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("err = %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("the boot left %v", left)
	}
}

// TestChannelReaderIncremental: each read takes only the bytes written
// since the last one, and frames split across reads arrive whole.
func TestChannelReaderIncremental(t *testing.T) {
	p := filepath.Join(t.TempDir(), "channel")
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &channelReader{f: f, limit: 1 << 20}
	var got []string
	collect := func(fr Frame) error { got = append(got, string(fr.Payload)); return nil }
	frame := EncodeFrame(KindLog, []byte("one"))
	w.Write([]byte("noise"))
	w.Write(frame[:20])
	if err := r.read(collect); err != nil || len(got) != 0 {
		t.Fatalf("read: %v, %q", err, got)
	}
	w.Write(frame[20:])
	w.Write(EncodeFrame(KindLog, []byte("two")))
	if err := r.read(collect); err != nil || strings.Join(got, ",") != "one,two" {
		t.Fatalf("read: %v, %q", err, got)
	}
	if fi, _ := w.Stat(); r.off != fi.Size() {
		t.Errorf("read %d bytes in all, the file has %d: bytes were read twice", r.off, fi.Size())
	}
	if len(r.buf) > len(Magic) {
		t.Errorf("%d bytes kept after whole frames", len(r.buf))
	}
}

// TestBootSanitisesGuestText: an OSC title, a carriage return and an
// erase-line from the guest (log and error frames, its hello, the console)
// reach neither OnFrame, nor the result, nor the error (on main they
// passed straight to stderr).
func TestBootSanitisesGuestText(t *testing.T) {
	var seen []string
	res, _, err := fakeBoot(t, "escapes", BootOptions{OnFrame: func(f Frame) {
		if f.Kind != KindResult && f.Kind != KindHello {
			seen = append(seen, string(f.Payload))
		}
	}})
	if !errors.Is(err, ErrGuest) || !strings.Contains(err.Error(), `refused\x1b]0;owned\x07\x0d\x1b[2K`) {
		t.Fatalf("err = %v", err)
	}
	assertSafe(t, "the error", err.Error(), false)
	for _, s := range append(seen, res.Logs...) {
		assertSafe(t, "a log line", s, false)
	}
	assertSafe(t, "the hello's release", res.Hello.Release, false)
	assertSafe(t, "the console", res.Console, true)
	if len(seen) != 3 {
		t.Errorf("OnFrame saw %q", seen)
	}

	// The last kernel message of a guest that never says hello (QEMU
	// exits: no timer decides when the console is read).
	_, _, err = fakeBoot(t, "console-only", BootOptions{})
	if !errors.Is(err, ErrQEMU) || !strings.Contains(err.Error(), `\x1b]0;owned\x07last`) {
		t.Fatalf("err = %v", err)
	}
	assertSafe(t, "the handshake error", err.Error(), false)
}

// TestBootForgedResult: a guest that claims a verified "off" boot it did
// not have (its files say "Mitigation:", its own verification says ok) is
// refused on the host.
func TestBootForgedResult(t *testing.T) {
	forged := guestPayload(t, func(s string) string {
		return strings.Replace(s, `"raw": "Vulnerable; STIBP: disabled; PBRSB-eIBRS: Not affected; BHI: Vulnerable"`, `"raw": "Mitigation: Retpolines; STIBP: disabled"`, 1)
	})
	p := filepath.Join(t.TempDir(), "result")
	os.WriteFile(p, forged, 0o644)
	t.Setenv(fakeQEMUResult, p)
	res, _, err := fakeBoot(t, "forge", BootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := MeasureInput{RunID: "20261130T234411-bdb94d", Label: "lab-6.1.0-57-amd64-off", Config: bootconfig.Off, Plan: []bootconfig.Config{bootconfig.On, bootconfig.Off},
		Cmdline: "console=ttyS0 panic=-1 mitigations=off", Release: "6.1.0-57-amd64"}
	if _, err := ImportRun(res.Result, in, &run.Lab{}); !errors.Is(err, ErrNotVerified) || !strings.Contains(err.Error(), "spectre_v2") {
		t.Errorf("forged result: %v", err)
	}
}

// TestProbeChecksSnapshot: lab --plan's probe boot is held to what a
// proof's boot is (CheckObserved): another release, another command line,
// more files than any kernel has and escaped names are refused in one line
// before anything is planned from them, and a snapshot over the channel's
// bound is stopped as it is written (memory bounded).
func TestProbeChecksSnapshot(t *testing.T) {
	exe, k := fakeSnapshotBoot(t, "snapshot")
	for lie, want := range map[string]string{"release": "6.99.0-evil", "cmdline": "built into the kernel", "many": "more than any kernel has",
		"name": "named", "huge": "more than a lab boot may"} {
		t.Setenv(fakeQEMULie, lie)
		s := &session{req: &Request{Plan: "vectors", QEMU: exe, SMP: 1, Accel: AccelTCG}, host: Host{Exe: exe, Out: measure.Discard{}},
			kernels: []Kernel{{Name: "6.1", Image: k}}, accel: AccelTCG, mem: 512}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		_, err := s.probe(ctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "probe boot of --plan") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", lie, err, want)
		}
	}
}

// fakeSnapshotBoot readies a boot of the test binary as QEMU in mode and
// as the guest's /init (skipped when it cannot be one), under a TMPDIR of
// its own, of a bzImage of 6.1.0-57-amd64: the binary and the image.
func fakeSnapshotBoot(t *testing.T, mode string) (string, KernelImage) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if CheckStatic(exe) != nil {
		t.Skip("the test binary is not static (CGO_ENABLED=0) and cannot be the guest's /init")
	}
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv(fakeQEMUEnv, mode)
	image := filepath.Join(t.TempDir(), "vmlinuz")
	os.WriteFile(image, bzImage("6.1.0-57-amd64"), 0o644)
	k, err := ReadKernel(image)
	if err != nil {
		t.Fatal(err)
	}
	return exe, k
}
