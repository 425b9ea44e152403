package vm_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"errors"
	. "github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/vm/vmtest"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"
)

// writeELF writes a minimal x86-64 ELF executable: one PT_LOAD, plus a
// PT_INTERP when dynamic.
func writeELF(t *testing.T, dynamic bool) string {
	t.Helper()
	var b bytes.Buffer
	phnum := 1
	if dynamic {
		phnum = 2
	}
	hdr := elf.Header64{
		Type: uint16(elf.ET_EXEC), Machine: uint16(elf.EM_X86_64), Version: uint32(elf.EV_CURRENT),
		Entry: 0x401000, Phoff: 64, Ehsize: 64, Phentsize: 56, Phnum: uint16(phnum),
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	hdr.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	hdr.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	binary.Write(&b, binary.LittleEndian, hdr)
	binary.Write(&b, binary.LittleEndian, elf.Prog64{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X), Vaddr: 0x400000, Filesz: 0x200, Memsz: 0x200, Align: 0x1000})
	if dynamic {
		binary.Write(&b, binary.LittleEndian, elf.Prog64{Type: uint32(elf.PT_INTERP), Flags: uint32(elf.PF_R), Off: 0x100, Filesz: 28, Memsz: 28, Align: 1})
	}
	for b.Len() < 0x200 {
		b.WriteByte(0)
	}
	p := filepath.Join(t.TempDir(), "sectax")
	if err := os.WriteFile(p, b.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckStatic(t *testing.T) {
	if err := CheckStatic(writeELF(t, false)); err != nil {
		t.Errorf("static ELF refused: %v", err)
	}
	err := CheckStatic(writeELF(t, true))
	if !errors.Is(err, ErrNotStatic) || !strings.Contains(err.Error(), "CGO_ENABLED=0 go build") {
		t.Errorf("dynamic ELF: %v", err)
	}
	notELF := filepath.Join(t.TempDir(), "script")
	os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755)
	if err := CheckStatic(notELF); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("a script: %v", err)
	}
}

func TestResolveModules(t *testing.T) {
	mods, err := ResolveModules("testdata/modules", []string{"9p", "9pnet_virtio", "8250", "virtio"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range mods {
		got = append(got, m.Name)
	}
	// Dependencies first, each once; built-in 8250 and virtio need nothing.
	if want := []string{"netfs", "9pnet", "9p", "9pnet_virtio"}; !slices.Equal(got, want) {
		t.Errorf("load order %v, want %v", got, want)
	}
	if _, err := ResolveModules("testdata/modules", []string{"virtio_blk"}); err == nil || !strings.Contains(err.Error(), "virtio_blk") {
		t.Errorf("a missing module: %v", err)
	}
	// A monolithic kernel (no modules directory content): nothing to load.
	if mods, err := ResolveModules(t.TempDir(), []string{"8250"}); err != nil || len(mods) != 0 {
		t.Errorf("empty modules dir: %v %v", mods, err)
	}
}

func TestBuildInitramfs(t *testing.T) {
	exe := writeELF(t, false)
	mods, err := ResolveModules("testdata/modules", []string{"9p"})
	if err != nil {
		t.Fatal(err)
	}
	task := Task{Name: "measure", Input: json.RawMessage(`{"label":"lab-k-on"}`)}
	var b bytes.Buffer
	err = BuildInitramfs(&b, InitramfsOptions{Init: exe, ModulesDir: "testdata/modules", Modules: mods, Task: task,
		Files: []File{{Name: "/boot/next", Mode: 0o600, Data: []byte("kernel")}}})
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	BuildInitramfs(&again, InitramfsOptions{Init: exe, ModulesDir: "testdata/modules", Modules: mods, Task: task,
		Files: []File{{Name: "/boot/next", Mode: 0o600, Data: []byte("kernel")}}})
	if !bytes.Equal(b.Bytes(), again.Bytes()) {
		t.Error("equal inputs gave different archives")
	}
	want, _ := os.ReadFile(exe)
	entries := map[string]*cpio.Header{}
	data := map[string][]byte{}
	var names []string
	r := cpio.NewReader(&b)
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r)
		entries[h.Name], data[h.Name] = h, body
		names = append(names, h.Name)
	}
	wantNames := []string{"boot", "dev", "lab", "lib", "lib/modules", "proc", "root", "sys", "tmp",
		"boot/next", "init", "lab/modules", "lab/task.json", "lib/modules/9p.ko", "lib/modules/9pnet.ko", "lib/modules/netfs.ko"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("entries %v\nwant %v", names, wantNames)
	}
	if h := entries["init"]; h == nil || !h.Mode.IsRegular() || h.Mode.Perm() != 0o755 || !bytes.Equal(data["init"], want) {
		t.Errorf("init: %+v", h)
	}
	if h := entries["proc"]; h == nil || !h.Mode.IsDir() {
		t.Errorf("proc: %+v", h)
	}
	if got := string(data["lab/modules"]); got != "/lib/modules/netfs.ko\n/lib/modules/9pnet.ko\n/lib/modules/9p.ko\n" {
		t.Errorf("module order %q", got)
	}
	if got := string(data["lib/modules/9pnet.ko"]); got != "fake 9pnet\n" {
		t.Errorf("9pnet.ko holds %q", got)
	}
	var gotTask Task
	if err := json.Unmarshal(data["lab/task.json"], &gotTask); err != nil || gotTask.Name != "measure" || string(gotTask.Input) != `{"label":"lab-k-on"}` {
		t.Errorf("task %s: %v", data["lab/task.json"], err)
	}
	if h := entries["boot/next"]; h == nil || h.Mode.Perm() != 0o600 || string(data["boot/next"]) != "kernel" {
		t.Errorf("extra file: %+v", h)
	}

	// A dynamic executable and a file that would replace /init are refused.
	if err := BuildInitramfs(io.Discard, InitramfsOptions{Init: writeELF(t, true)}); !errors.Is(err, ErrNotStatic) {
		t.Errorf("dynamic init: %v", err)
	}
	if err := BuildInitramfs(io.Discard, InitramfsOptions{Init: exe, Files: []File{{Name: "/init"}}}); err == nil {
		t.Error("an extra /init was accepted")
	}
}

func TestKernelVersion(t *testing.T) {
	rel, full, err := KernelVersion(vmtest.BzImage("6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1"))
	if err != nil || rel != "6.1.0-57-amd64" || !strings.HasPrefix(full, "6.1.0-57-amd64 (debian") {
		t.Errorf("KernelVersion = %q, %q, %v", rel, full, err)
	}
	for name, img := range map[string][]byte{
		"empty":      nil,
		"no HdrS":    make([]byte, 0x1000),
		"old":        func() []byte { b := vmtest.BzImage("x"); binary.LittleEndian.PutUint16(b[0x206:], 0x01ff); return b }(),
		"outside":    func() []byte { b := vmtest.BzImage("x"); binary.LittleEndian.PutUint16(b[0x20E:], 0xffff); return b }(),
		"no version": vmtest.BzImage(""),
	} {
		if _, _, err := KernelVersion(img); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzKernelVersion(f *testing.F) {
	f.Add(vmtest.BzImage("6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP"))
	f.Add(vmtest.BzImage("6.6.87.2-microsoft-standard-WSL2 (root@x) #1 SMP"))
	f.Add(make([]byte, 0x210))
	f.Fuzz(func(t *testing.T, img []byte) {
		rel, _, err := KernelVersion(img)
		if err == nil && (rel == "" || strings.ContainsAny(rel, " \x00\n")) {
			t.Fatalf("release %q", rel)
		}
		if n := CmdlineSize(img); n < 1 || n > 1<<20 {
			t.Fatalf("cmdline size %d", n)
		}
	})
}

func TestReadKernel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "vmlinuz-test")
	os.WriteFile(p, vmtest.BzImage("6.1.0-57-amd64 #1"), 0o644)
	k, err := ReadKernel(p)
	if err != nil || k.Release != "6.1.0-57-amd64" || len(k.SHA256) != 64 {
		t.Errorf("ReadKernel = %+v, %v", k, err)
	}
	if _, err := ReadKernel(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing image was accepted")
	}
}

func FuzzResolveModules(f *testing.F) {
	dep, _ := os.ReadFile("testdata/modules/modules.dep")
	f.Add(string(dep), "9p")
	f.Add("a.ko: b.ko\nb.ko: a.ko\n", "a")
	f.Add("kernel/x/a-b.ko.xz:\n::\n", "a_b")
	f.Fuzz(func(t *testing.T, depText, name string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "modules.dep"), []byte(depText), 0o644)
		mods, err := ResolveModules(dir, []string{name})
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, m := range mods {
			if seen[m.Path] {
				t.Fatalf("%s loaded twice", m.Path)
			}
			seen[m.Path] = true
		}
	})
}
