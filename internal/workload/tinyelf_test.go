package workload

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// The tiny programs are well-formed ELF files for both architectures, and
// on this machine's architecture they really run.
func TestTinyELFParses(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := buildTinyELF(arch, exitCode[arch])
		if err != nil {
			t.Fatal(err)
		}
		f, err := elf.NewFile(bytes.NewReader(img))
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if f.Type != elf.ET_EXEC || len(f.Progs) != 1 || f.Progs[0].Type != elf.PT_LOAD {
			t.Errorf("%s: type %v, %d program headers", arch, f.Type, len(f.Progs))
		}
		if want := uint64(tinyLoadAddr + 64 + 56); f.Entry != want {
			t.Errorf("%s: entry %#x, want %#x", arch, f.Entry, want)
		}
	}
	if _, err := buildTinyELF("riscv64", nil); err == nil {
		t.Error("an architecture without code must be refused")
	}
}

func TestExitProgramRuns(t *testing.T) {
	if _, ok := exitCode[runtime.GOARCH]; !ok {
		t.Skip("no tiny program for", runtime.GOARCH)
	}
	path, err := exitProgram.Path()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path)
	cmd.Env = []string{}
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() > 4096 {
		t.Errorf("the tiny program should be one page: %v, %v", st, err)
	}
}
