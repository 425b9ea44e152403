package vm

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

func TestQEMUArgs(t *testing.T) {
	var b strings.Builder
	for _, q := range []QEMU{
		{Accel: AccelTCG, CPU: DefaultCPU(AccelTCG), MemoryMiB: 1024, SMP: 2, Kernel: "/boot/vmlinuz-6.1.0-57-amd64",
			Initrd: "/tmp/l/initramfs.cpio", Append: LabParams + " mitigations=off", Console: "/tmp/l/console.log", Channel: "/tmp/l/channel.bin"},
		{Accel: AccelKVM, CPU: DefaultCPU(AccelKVM), MemoryMiB: 512, SMP: 1, Kernel: "/mnt/c/wsl,3/bzImage",
			Initrd: "/tmp/a,b/i.cpio", Append: LabParams, Console: "/tmp/a,b/console.log", Channel: "/tmp/a,b/channel.bin"},
		{Accel: AccelTCG, CPU: "EPYC-Rome-v1", MemoryMiB: 512, SMP: 2, Threads: 2, Kernel: "/boot/vmlinuz-7.3-amd64", Direct: "/tmp/p/vmlinux-0123456789abcdef",
			Initrd: "/tmp/p/initramfs.cpio", Append: LabParams, Console: "/tmp/p/console.log", Channel: "/tmp/p/channel.bin"},
	} {
		b.WriteString("qemu-system-x86_64")
		for _, a := range q.Args() {
			if strings.ContainsAny(a, " '") {
				a = "'" + a + "'"
			}
			b.WriteString(" " + a)
		}
		b.WriteString("\n")
	}
	testutil.Golden(t, filepath.Join("testdata", "qemu-args.golden"), []byte(b.String()))
}

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int{"1G": 1024, "512M": 512, "2g": 2048, "768": 768} {
		if got, err := ParseMemory(in); err != nil || got != want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1T", "64M", "-1G", "G", "1.5G"} {
		if _, err := ParseMemory(in); err == nil {
			t.Errorf("ParseMemory(%q) accepted", in)
		}
	}
}

// TestLastLineNamesThePanic: a boot that panics ends its console with the
// panic's dump (a trace, "Kernel Offset: …"); the error quotes the line
// that says why, not the dump's last line; without a panic, the last line.
func TestLastLineNamesThePanic(t *testing.T) {
	dump := "[    0.60] general protection fault: 0000 [#1] PREEMPT SMP PTI\r\n" +
		"[    0.61] Kernel panic - not syncing: Fatal exception in interrupt\r\n" +
		"[    0.62] Kernel Offset: disabled\r\n"
	if got := lastLine(dump, ""); got != `"[    0.61] Kernel panic - not syncing: Fatal exception in interrupt" (and its dump)` {
		t.Errorf("lastLine = %s", got)
	}
	if got := lastLine("[ 1.0] a\n[ 2.0] Run /init as init process\n\n", ""); got != `"[ 2.0] Run /init as init process"` {
		t.Errorf("lastLine = %s", got)
	}
}
