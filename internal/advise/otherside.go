package advise

import (
	"fmt"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// OtherSide says in one line, after a run, what the other side of an
// on/off comparison needs on this platform: on WSL the .wslconfig edit
// and a wsl --shutdown (or a campaign), natively a reboot (advise shows
// the edit, campaign does both), and in a VM guest whose command line no
// boot loader below / sets (a microVM, a managed runner) that the host
// sets it, so no on/off answer is possible from inside, with sectax lab
// as the way to measure both. "" without a snapshot.
func OtherSide(s *sysinfo.Snapshot, p Platform) string {
	if s == nil {
		return ""
	}
	target, want := "off", "mitigations=off"
	if s.MitigationMode == mitigation.ModeOff {
		target, want = "auto", "the default mitigations"
	}
	switch {
	case p.Kind == PlatformWSL:
		return fmt.Sprintf("the other side (%s) needs .wslconfig's kernelCommandLine changed and wsl --shutdown: sectax advise --target %s shows the steps, sectax campaign measures both", want, target)
	case HostSetBy(s, p) != "":
		host := HostSetBy(s, p)
		return fmt.Sprintf("this guest's kernel command line is set by %s (no boot loader configuration here): no on/off answer is possible from inside; ask for a boot with %s, or measure both settings in QEMU guests with sectax lab", host, want)
	case p.Kind == PlatformUnknown:
		return fmt.Sprintf("the other side (%s) needs a boot with that command line, set where this machine boots (no boot loader configuration was found): sectax advise --target %s", want, target)
	}
	return fmt.Sprintf("the other side (%s) needs a reboot: sectax advise --target %s shows the steps for %s, sectax campaign reboots and measures both", want, target, p.Name)
}

// HostSetBy names who sets the kernel command line of a VM guest in which
// no boot loader configuration was found and which is not WSL (a microVM,
// a managed runner): "the KVM host", or "the host"; "" for any other
// machine. No reboot from inside changes such a line (kexec aside), so
// both settings are measured in QEMU guests with sectax lab.
func HostSetBy(s *sysinfo.Snapshot, p Platform) string {
	if s == nil || p.Kind != PlatformUnknown || !s.Hypervisor.Guest || s.WSL != nil {
		return ""
	}
	if s.Hypervisor.Vendor != "" {
		return "the " + s.Hypervisor.Vendor + " host"
	}
	return "the host"
}
