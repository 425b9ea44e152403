package vm

import (
	"time"

	"github.com/sectax/sectax/internal/exit"
)

// CheckBounds refuses a negative --handshake or --vm-timeout (zero is
// the default), and a handshake wait longer than the whole boot's bound,
// for the lab and for --prove alike: a usage error.
func CheckBounds(handshake, vmTimeout time.Duration) error {
	switch {
	case handshake < 0:
		return exit.Usagef("--handshake %s: give a positive time, e.g. 5m (or 0 for the default)", handshake)
	case vmTimeout < 0:
		return exit.Usagef("--vm-timeout %s: give a positive time, e.g. 10m (or 0 for the default)", vmTimeout)
	case handshake > 0 && vmTimeout > 0 && handshake > vmTimeout:
		return exit.Usagef("--handshake %s is longer than --vm-timeout %s, which bounds the whole boot: lower --handshake or raise --vm-timeout", handshake, vmTimeout)
	}
	return nil
}

// MaxCPUModel bounds --cpu (QEMU's longest model name with a few feature
// flags is far shorter); a proof's stored key holds no longer name.
const MaxCPUModel = 128

// CheckCPUModel refuses a --cpu that is longer than MaxCPUModel or holds a
// character no QEMU model or feature flag has: a usage error.
func CheckCPUModel(cpu string) error {
	if len(cpu) > MaxCPUModel {
		return exit.Usagef("--cpu: %d bytes, longer than any QEMU CPU model (at most %d): give a model from qemu-system-x86_64 -cpu help", len(cpu), MaxCPUModel)
	}
	for _, r := range cpu {
		if r <= ' ' || r > '~' {
			return exit.Usagef("--cpu %q: a QEMU CPU model is printable ASCII without spaces: give a model from qemu-system-x86_64 -cpu help", cpu)
		}
	}
	return nil
}

// CheckBzImage refuses, as --prove's image, a file whose Linux setup
// header (and so whose release) could not be read: the release is what
// the guest's own claim is checked against.
func CheckBzImage(k KernelImage) error {
	if k.Release == "" {
		return exit.Usagef("kernel image %s: not a bzImage (no Linux setup header with a version string): give a bzImage such as /boot/vmlinuz-VERSION", k.Path)
	}
	return nil
}
