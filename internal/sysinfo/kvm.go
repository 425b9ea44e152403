package sysinfo

import "github.com/sectax/sectax/internal/rootfs"

// KVMLoaded reports whether the kernel below root ("" or "/" for this
// machine) has KVM loaded, so that it can run VMs: /sys/module/kvm exists.
// Only the name is looked at, through rootfs: below a fake root a link that
// leads outside it is not followed.
func KVMLoaded(root string) bool {
	f, err := rootfs.Open(root)
	if err != nil {
		return false
	}
	_, err = f.Stat("sys/module/kvm")
	return err == nil
}
