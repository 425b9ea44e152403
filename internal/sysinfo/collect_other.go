//go:build !linux

package sysinfo

import "context"

// Collect fails on an operating system other than Linux with
// ErrNeedsLinux.
func Collect(root string) (*Snapshot, error) { return nil, ErrNeedsLinux }

// CollectContext fails like Collect on an operating system other than
// Linux.
func CollectContext(ctx context.Context, root string) (*Snapshot, error) { return nil, ErrNeedsLinux }
