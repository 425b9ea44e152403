package vm

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sectax/sectax/internal/child"
)

// QEMUVersion is the first line of `qemu --version` ("QEMU emulator
// version 7.2.22 (Debian …)").
func QEMUVersion(ctx context.Context, binary string) (string, error) {
	binary = QEMUBinary(binary)
	bin, err := child.LookPath(binary)
	if err != nil {
		return "", fmt.Errorf("%s not found: install QEMU (Debian: apt-get install qemu-system-x86)", binary)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := child.Output(ctx, child.Options{WaitDelay: time.Second}, bin, "--version")
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return firstLine(string(out)), nil
}

// QEMUBinary is --qemu's binary ("": qemu-system-x86_64).
func QEMUBinary(binary string) string {
	if binary == "" {
		return "qemu-system-x86_64"
	}
	return binary
}

// kvmDevice is KVM's device (a test opens another file in its place).
var kvmDevice = "/dev/kvm"

// KVMUsable says why -accel kvm cannot work here (nil when /dev/kvm can be
// opened for reading and writing). A usable /dev/kvm may still fail to run
// a guest (software nested virtualization): Boot detects that.
func KVMUsable() error {
	f, err := os.OpenFile(kvmDevice, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", kvmDevice, err)
	}
	f.Close()
	return nil
}
