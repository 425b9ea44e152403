package vm

// KVMDevice is the device KVMUsable opens, for the tests of vm_test.
var KVMDevice = &kvmDevice

// The bounds of a snapshot, for the tests of vm_test.
const (
	MaxObservedFiles = maxObservedFiles
	MaxObservedText  = maxObservedText
)
