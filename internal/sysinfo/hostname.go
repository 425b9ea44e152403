package sysinfo

import (
	"strings"

	"github.com/sectax/sectax/internal/rootfs"
)

// hostnameFile is where the kernel keeps the hostname.
const hostnameFile = "proc/sys/kernel/hostname"

// Hostname is the hostname of the machine below root, "" when it cannot
// be read. Collect records it in the snapshot with a note when it cannot;
// this is for a caller that needs only the name. Both read it with
// readHostname.
func Hostname(root string) string {
	f, err := rootfs.Open(root)
	if err != nil {
		return ""
	}
	defer f.Close()
	h, _ := readHostname(f)
	return h
}

// readHostname is the one reader of the hostname: a regular file below
// the root, its words joined by one space.
func readHostname(f *rootfs.FS) (string, error) {
	s, err := f.ReadText(hostnameFile)
	if err != nil {
		return "", err
	}
	return strings.Join(strings.Fields(s), " "), nil
}

// hostname reads the hostname, recording the file when it cannot.
func (c *collector) hostname() string {
	h, err := readHostname(c.fs)
	c.note(hostnameFile, err)
	return h
}
