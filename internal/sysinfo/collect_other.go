//go:build !linux

package sysinfo

// Collect fails on an operating system other than Linux with
// ErrNeedsLinux.
func Collect(root string) (*Snapshot, error) { return nil, ErrNeedsLinux }
