// Package vmtest is the fake QEMU of the tests of vm and of the packages
// that boot through it: the test binary, started by vm.Boot as its QEMU
// with Env naming what its "guest" does, writes the channel and the
// console files named on its command line as a guest running a kernel and
// an initramfs that are not sectax's could.
package vmtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/vm"
)

// Main runs the fake QEMU and exits when the test binary was started as
// one (Env is set); a TestMain calls it first.
func Main() {
	if mode := os.Getenv(Env); mode != "" {
		fakeMain(mode)
	}
}

// Env names what the fake QEMU's guest does (its mode).
const Env = "SECTAX_TEST_FAKE_QEMU"

// LieEnv names how the "snapshot" guest lies.
const LieEnv = "SECTAX_TEST_FAKE_LIE"

// ResultEnv names a file whose bytes the "forge" guest sends as its
// result frame.
const ResultEnv = "SECTAX_TEST_FAKE_RESULT"

// EscTitle (an OSC title) and EscRewrite (a carriage return and an
// erase-line) are what the "escapes" and "console-only" guests write.
const (
	EscTitle   = "\x1b]0;owned\x07"
	EscRewrite = "\r\x1b[2Ksectax: all boots verified"
)

// fakeMain is the fake QEMU running mode; it exits.
func fakeMain(mode string) {
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
	send := func(kind byte, payload string) { ch.Write(vm.EncodeFrame(kind, []byte(payload))) }
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
		send(vm.KindHello, `{"release":"6.1.0-fake","task":"measure"}`)
		var b []byte
		for i := 0; i < 20000; i++ {
			b = append(b, vm.EncodeFrame(vm.KindLog, nil)...)
		}
		ch.Write(b)
		hang()
	case "flood-log":
		send(vm.KindHello, `{"release":"6.1.0-fake","task":"measure"}`)
		line := strings.Repeat("x", 4000)
		for i := 0; i < 1000; i++ {
			send(vm.KindLog, line)
		}
		hang()
	case "escapes":
		con.WriteString("[    0.000000] Linux version 6.1.0-fake\n" + EscTitle + "kernel says" + EscRewrite + "\n")
		send(vm.KindHello, `{"release":"6.1.0-fake`+EscTitle+`","task":"measure"}`)
		send(vm.KindLog, "verifying"+EscTitle+EscRewrite)
		send(vm.KindError, "refused"+EscTitle+EscRewrite+"\nsecond line")
		send(vm.KindDone, "")
	case "console-only":
		con.WriteString("booting\n" + EscTitle + "last" + EscRewrite + "\n")
		con.Close()
		os.Exit(1)
	case "forge":
		data, err := os.ReadFile(os.Getenv(ResultEnv))
		if err != nil {
			os.Exit(1)
		}
		send(vm.KindHello, `{"release":"6.1.0-57-amd64","task":"measure"}`)
		send(vm.KindResult, string(data))
		send(vm.KindDone, "")
	case "snapshot":
		// A snapshot task's guest that lies as SECTAX_TEST_FAKE_LIE says.
		appendLine, release := argAfter("-append"), "6.1.0-57-amd64"
		files := map[string]string{"meltdown": "Vulnerable"}
		switch os.Getenv(LieEnv) {
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
		send(vm.KindHello, `{"release":"`+release+`","task":"snapshot"}`)
		send(vm.KindResult, string(ObservedPayload(appendLine, release, files)))
		send(vm.KindDone, "")
	case "kvm-fails":
		// As a host whose /dev/kvm opens but cannot run a guest: under kvm
		// an accelerator error; under tcg (where -cpu host is refused, as
		// QEMU does) a guest that reports the line and release passed.
		accel, cpu, appendLine := argAfter("-accel"), argAfter("-cpu"), argAfter("-append")
		if accel == vm.AccelKVM {
			os.Stderr.WriteString("KVM internal error. Suberror: 1\n")
			hang()
		}
		if cpu == "host" {
			os.Stderr.WriteString("qemu: CPU model 'host' requires KVM or HVF\n")
			os.Exit(1)
		}
		send(vm.KindHello, `{"release":"6.1.0-57-amd64","task":"snapshot"}`)
		send(vm.KindResult, string(ObservedPayload(appendLine, "6.1.0-57-amd64", map[string]string{"meltdown": "Vulnerable"})))
		send(vm.KindDone, "")
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

// Boot boots the test binary as QEMU in mode; the boot's folder is
// under a TMPDIR of its own, returned.
func Boot(t *testing.T, mode string, opts vm.BootOptions) (*vm.BootResult, string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(Env, mode)
	opts.QEMU.Binary, opts.QEMU.Accel = exe, vm.AccelTCG
	if opts.Handshake == 0 {
		opts.Handshake = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := vm.Boot(ctx, opts)
	return res, tmp, err
}

// StaticSelf is the test binary, to be a guest's /init: it must be
// static (CGO_ENABLED=0), else the test is skipped.
func StaticSelf(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if vm.CheckStatic(exe) != nil {
		t.Skip("the test binary is not static (CGO_ENABLED=0) and cannot be the guest's /init")
	}
	return exe
}

// SnapshotBoot readies a boot of the test binary as QEMU in mode and
// as the guest's /init (skipped when it cannot be one), under a TMPDIR of
// its own, of a BzImage of 6.1.0-57-amd64: the binary and the image.
func SnapshotBoot(t *testing.T, mode string) (string, vm.KernelImage) {
	t.Helper()
	exe := StaticSelf(t)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv(Env, mode)
	image := filepath.Join(t.TempDir(), "vmlinuz")
	os.WriteFile(image, BzImage("6.1.0-57-amd64"), 0o644)
	k, err := vm.ReadKernel(image)
	if err != nil {
		t.Fatal(err)
	}
	return exe, k
}

func ObservedPayload(cmdline, release string, files map[string]string) []byte {
	var vs []map[string]string
	for n, raw := range files {
		vs = append(vs, map[string]string{"name": n, "raw": raw, "state": "mitigated"})
	}
	b, _ := json.Marshal(map[string]any{"kernel": map[string]string{"release": release}, "cmdline": map[string]string{"raw": cmdline}, "vulnerabilities": vs})
	return b
}

// BzImage returns a fake image with a setup header and version string.
func BzImage(version string) []byte {
	img := make([]byte, 0x600)
	copy(img[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(img[0x206:], 0x020f)
	binary.LittleEndian.PutUint16(img[0x20E:], 0x400-0x200)
	copy(img[0x400:], version+"\x00")
	return img
}
