package sysinfo

import (
	"strings"

	"github.com/sectax/sectax/internal/rootfs"
)

// Hostname is the hostname of the machine below root
// (proc/sys/kernel/hostname, a regular file read through rootfs), "" when
// it cannot be read. Collect records it in the snapshot with a note when
// it cannot; this is for a caller that needs only the name.
func Hostname(root string) string {
	fs, err := rootfs.Open(root)
	if err != nil {
		return ""
	}
	defer fs.Close()
	s, err := fs.ReadText("proc/sys/kernel/hostname")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(s)
}
