package vm_test

import (
	"context"
	"encoding/binary"
	"errors"
	. "github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/vm/vmtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/exit"
)

// TestReadKernelBounded: a 1 TB sparse file is refused before any byte is
// hashed, and a cancelled context stops the hash (on main the sparse file
// was hashed for 11 minutes, deaf to SIGINT and SIGTERM).
func TestReadKernelBounded(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "vmlinuz-huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(vmtest.BzImage("6.1.0-57-amd64 #1"))
	if err := f.Truncate(1 << 40); err != nil {
		t.Skipf("no sparse 1 TB file here: %v", err)
	}
	f.Close()
	// Refused from its size, before the first block is hashed.
	if _, err := ReadKernel(huge); err == nil || !strings.Contains(err.Error(), "larger than any kernel") {
		t.Errorf("ReadKernel(1 TB) = %v", err)
	}

	// Under the limit, a cancelled context stops the hash.
	big := filepath.Join(dir, "vmlinuz-big")
	os.WriteFile(big, vmtest.BzImage("6.1.0-57-amd64 #1"), 0o644)
	os.Truncate(big, MaxKernelImage-1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadKernelContext(ctx, big); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadKernelContext(cancelled) = %v", err)
	}
}

// withCmdlineSize sets a fake image's cmdline_size.
func withCmdlineSize(img []byte, n uint32) []byte {
	binary.LittleEndian.PutUint32(img[0x238:], n)
	return img
}

func TestCmdlineSize(t *testing.T) {
	old := vmtest.BzImage("x")
	binary.LittleEndian.PutUint16(old[0x206:], 0x0205)
	for name, tc := range map[string]struct {
		head []byte
		want int
	}{
		"stated":      {withCmdlineSize(vmtest.BzImage("x"), 2047), 2047},
		"small":       {withCmdlineSize(vmtest.BzImage("x"), 64), 64},
		"before 2.06": {old, 255},
		"not stated":  {withCmdlineSize(vmtest.BzImage("x"), 0), DefaultCmdlineSize},
		"no header":   {make([]byte, 0x1000), DefaultCmdlineSize},
		"short":       {nil, DefaultCmdlineSize},
	} {
		if got := CmdlineSize(tc.head); got != tc.want {
			t.Errorf("%s: CmdlineSize = %d, want %d", name, got, tc.want)
		}
	}
	if imgs, _ := filepath.Glob("/boot/vmlinuz-*"); len(imgs) > 0 {
		k, err := ReadKernel(imgs[0])
		if err == nil && (k.CmdlineSize < 255 || k.CmdlineSize > 1<<20) {
			t.Errorf("%s: cmdline_size %d", imgs[0], k.CmdlineSize)
		}
	}
}

// TestCheckConfigs: a configuration may not set what the lab needs
// (console=, panic=: a panicking guest then ran to --vm-timeout), and a
// command line longer than the kernel's cmdline_size is refused before
// any boot, as a usage error.
func TestCheckConfigs(t *testing.T) {
	k := KernelImage{Path: "/boot/vmlinuz-test", CmdlineSize: 2047}
	plan := func(specs ...string) []bootconfig.Config {
		cs, err := bootconfig.ParseAll(append([]string{"on"}, specs...))
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	if err := CheckConfigs(k, plan("off=mitigations=off", "nopti=pti=off")); err != nil {
		t.Errorf("a plain plan: %v", err)
	}
	for _, spec := range []string{"quiet=panic=0", "serial=console=tty0", "t=no_timer_check"} {
		err := CheckConfigs(k, plan(spec))
		if !errors.Is(err, ErrCmdline) || exit.Of(err) != exit.Usage || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", spec, err)
		}
	}
	long := "long=" + strings.Repeat("x", 100) + "=1"
	small := KernelImage{Path: "/boot/vmlinuz-small", CmdlineSize: 64}
	if err := CheckConfigs(k, plan(long)); err != nil {
		t.Errorf("long on a 2047-byte kernel: %v", err)
	}
	if err := CheckConfigs(small, plan(long)); !errors.Is(err, ErrCmdline) || !strings.Contains(err.Error(), "longer than the 64") {
		t.Errorf("long: %v", err)
	}
	if err := CheckCmdline(LabParams+" panic=0", 2047); !errors.Is(err, ErrCmdline) {
		t.Errorf("a later panic=0 was accepted: %v", err)
	}
	if err := CheckCmdline(LabParams+" quiet", 2047); err != nil {
		t.Errorf("LabParams quiet: %v", err)
	}
}

// TestBootChecksCmdline: Boot itself refuses a command line the kernel
// would cut or one without the lab's parameters, before QEMU starts.
func TestBootChecksCmdline(t *testing.T) {
	img := filepath.Join(t.TempDir(), "vmlinuz-small")
	os.WriteFile(img, withCmdlineSize(vmtest.BzImage("6.1.0-57-amd64 #1"), 64), 0o644)
	for _, cmdline := range []string{LabParams + " " + strings.Repeat("x", 64), "console=ttyS0 quiet"} {
		_, err := Boot(context.Background(), BootOptions{QEMU: QEMU{Binary: "/nonexistent/qemu", Kernel: img, Append: cmdline}})
		if !errors.Is(err, ErrCmdline) {
			t.Errorf("%q: %v", cmdline, err)
		}
	}
}

func TestReadKernelKinds(t *testing.T) {
	if _, err := ReadKernel(filepath.Join(t.TempDir(), "missing")); exit.Of(err) != exit.Usage {
		t.Errorf("missing image: %v is not a usage error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := filepath.Join(t.TempDir(), "vmlinuz")
	os.WriteFile(p, vmtest.BzImage("6.1.0-57-amd64 #1"), 0o644)
	if _, err := ReadKernelContext(ctx, p); exit.Of(err) != exit.Interrupted {
		t.Errorf("cancelled: %v is not an interruption", err)
	}
}

// TestPrivateKernel: the image a proof boots is a private copy of the
// bytes it hashed: the copy's hash is the original's, it lives in a
// folder of sectax's own (0600), a change to the original afterwards
// changes neither, the folder goes with remove, and a file with no
// vmtest.BzImage header is refused as a usage error, leaving no copy.
func TestPrivateKernel(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	orig := filepath.Join(t.TempDir(), "vmlinuz")
	img := vmtest.BzImage("6.1.0-57-amd64")
	if err := os.WriteFile(orig, img, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := ReadKernel(orig)
	if err != nil {
		t.Fatal(err)
	}
	k, remove, err := PrivateKernel(context.Background(), orig)
	if err != nil {
		t.Fatal(err)
	}
	if k.Path == orig || k.SHA256 != want.SHA256 || k.Release != "6.1.0-57-amd64" {
		t.Errorf("copy %+v, original %+v", k, want)
	}
	// The original swapped after the hash: the bytes booted are the copy's.
	os.WriteFile(orig, vmtest.BzImage("6.99.0-evil"), 0o644)
	got, err := ReadKernel(k.Path)
	if err != nil || got.SHA256 != k.SHA256 {
		t.Errorf("the copy changed with the original: %+v %v", got, err)
	}
	if fi, err := os.Stat(k.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("copy mode: %v %v", fi, err)
	}
	remove()
	if _, err := os.Stat(filepath.Dir(k.Path)); !os.IsNotExist(err) {
		t.Errorf("the copy's folder outlived remove: %v", err)
	}
	os.WriteFile(orig, make([]byte, 8192), 0o644)
	if _, _, err := PrivateKernel(context.Background(), orig); err == nil || !strings.Contains(err.Error(), "not a bzImage") || exit.Of(err) != exit.Usage {
		t.Errorf("a file with no bzImage header: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "sectax-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
