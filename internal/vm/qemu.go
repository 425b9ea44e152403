package vm

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Accelerators.
const (
	AccelKVM  = "kvm"
	AccelTCG  = "tcg"
	AccelAuto = "auto"
)

// TCGCPU is the CPU model used under TCG: an Intel model under which the
// kernel picks the x86 mitigations (PTI, MDS buffer clears, retpolines,
// ITS thunks), so that a configuration that turns them off changes them.
const TCGCPU = "Skylake-Client-v1"

// LabParams are the kernel parameters every lab boot gets, whatever its
// configuration: the console on the first serial port, a panic that ends
// the VM at once (with -no-reboot) instead of hanging it, and no check of
// the timer interrupt at boot (under an emulator on a busy host the check
// times out and panics with "IO-APIC + timer doesn't work").
const LabParams = "console=ttyS0 panic=-1 no_timer_check"

// QEMU describes one VM.
type QEMU struct {
	// Binary is the QEMU executable ("qemu-system-x86_64").
	Binary string
	Accel  string // kvm or tcg
	CPU    string
	// MemoryMiB and SMP size the guest.
	MemoryMiB int
	SMP       int
	// Threads, when above 1, makes the vCPUs SMT siblings (-smp
	// N,threads=T): the guest kernel then sees SMT it can turn off.
	Threads int
	Kernel  string
	// Direct, when set, is Kernel unpacked (vm.Direct): QEMU starts it at
	// its PVH entry, and Kernel still gives the command line's limit.
	Direct string
	Initrd string
	// Append is the whole kernel command line.
	Append string
	// Console and Channel are the files QEMU writes the first serial port
	// (kernel messages) and the second (the result channel) to.
	Console string
	Channel string
}

// DefaultCPU is the CPU model for an accelerator: the host's own under KVM,
// TCGCPU under TCG.
func DefaultCPU(accel string) string {
	if accel == AccelKVM {
		return "host"
	}
	return TCGCPU
}

// Args is QEMU's command line (without the binary): no default devices, no
// display, no reboot (a reboot or a panic ends the VM), the kernel booted
// directly with the initramfs, and two serial ports written to files.
func (q QEMU) Args() []string {
	return []string{
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-accel", q.Accel,
		"-cpu", q.CPU,
		"-m", strconv.Itoa(q.MemoryMiB) + "M",
		"-smp", q.smp(),
		"-kernel", cmp.Or(q.Direct, q.Kernel),
		"-initrd", q.Initrd,
		"-append", q.Append,
		"-chardev", "file,id=console,path=" + escapeOpt(q.Console),
		"-serial", "chardev:console",
		"-chardev", "file,id=channel,path=" + escapeOpt(q.Channel),
		"-serial", "chardev:channel",
	}
}

// smp is -smp's value.
func (q QEMU) smp() string {
	if q.Threads > 1 {
		return strconv.Itoa(q.SMP) + ",threads=" + strconv.Itoa(q.Threads)
	}
	return strconv.Itoa(q.SMP)
}

// escapeOpt doubles commas, QEMU's escape inside an option value.
func escapeOpt(s string) string { return strings.ReplaceAll(s, ",", ",,") }

// ParseMemory reads --memory: "1G", "512M", "1024" (MiB).
func ParseMemory(s string) (int, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	mult := 1
	switch {
	case strings.HasSuffix(t, "G"):
		mult, t = 1024, strings.TrimSuffix(t, "G")
	case strings.HasSuffix(t, "M"):
		t = strings.TrimSuffix(t, "M")
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 || n*mult < 128 || n*mult > 1<<20 {
		return 0, fmt.Errorf("--memory %q: give a size from 128M to 1024G, e.g. 1G or 512M", s)
	}
	return n * mult, nil
}
