package sysinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// TestKVMLoaded: /sys/module/kvm below the root says KVM is loaded; a
// link that leads out of a fake root is not followed.
func TestKVMLoaded(t *testing.T) {
	root := t.TempDir()
	if KVMLoaded(root) {
		t.Error("KVM loaded in an empty root")
	}
	mod := filepath.Join(root, "sys", "module")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(mod, "kvm")); err != nil {
		t.Fatal(err)
	}
	if KVMLoaded(root) {
		t.Error("a kvm link out of the root was followed")
	}
	os.Remove(filepath.Join(mod, "kvm"))
	if err := os.Mkdir(filepath.Join(mod, "kvm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !KVMLoaded(root) {
		t.Error("/sys/module/kvm present, KVM not seen")
	}
	if KVMLoaded(filepath.Join(root, "missing")) {
		t.Error("a missing root has KVM")
	}
}
