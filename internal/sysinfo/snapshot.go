// Package sysinfo takes a snapshot of the machine a run measures, reading
// /proc and /sys below a root directory so that tests can use fake trees.
package sysinfo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Snapshot is the environment of a run: the `env` object of the
// sectax.run/v1 document and the output of `sectax env --format json`.
type Snapshot struct {
	Kernel  Kernel  `json:"kernel"`
	Cmdline Cmdline `json:"cmdline"`
}

// Kernel describes the running kernel.
type Kernel struct {
	// Release is /proc/sys/kernel/osrelease ("6.18.44-fc-v657").
	Release string `json:"release"`
}

// Cmdline is the kernel command line of the running boot.
type Cmdline struct {
	// Raw is /proc/cmdline without its trailing newline.
	Raw string `json:"raw"`
}

// Collect reads the snapshot below root ("/" for the running machine).
// Missing files leave their fields empty; only a root that does not exist is
// an error.
func Collect(root string) (*Snapshot, error) {
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("root %q is not a directory", root)
	}
	var s Snapshot
	s.Kernel.Release = readTrim(root, "proc/sys/kernel/osrelease")
	s.Cmdline.Raw = readTrim(root, "proc/cmdline")
	return &s, nil
}

func readTrim(root, rel string) string {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return string(bytes.TrimRight(b, "\n\x00"))
}
