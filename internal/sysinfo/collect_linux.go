//go:build linux

package sysinfo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"syscall"

	"github.com/sectax/sectax/internal/rootfs"
)

// Collect reads the snapshot below root ("/" for the running machine).
// Missing and unreadable files are recorded in the snapshot, not returned
// as errors; the only error is a root that is not a directory holding
// proc/ or sys/ (wrapping ErrBadRoot).
func Collect(root string) (*Snapshot, error) {
	return CollectContext(context.Background(), root)
}

// CollectContext is Collect with a context: cancelling it stops waiting
// for the external programs asked on a live WSL guest.
func CollectContext(ctx context.Context, root string) (*Snapshot, error) {
	if root == "" {
		root = "/"
	}
	// Every file is read through one rootfs.FS: below a fake tree that is
	// os.Root, so a symbolic link that points outside it is never
	// followed, and the file is recorded as unreadable instead.
	rfs, err := rootfs.Open(root)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Errorf("%w: %s is not a directory", ErrBadRoot, root)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrBadRoot, root, rootfs.ErrText(err))
	}
	defer rfs.Close()
	c := &collector{root: root, live: rfs.Live(), fs: rfs}
	if !c.isDir("proc") && !c.isDir("sys") {
		return nil, fmt.Errorf("%w: %s holds neither proc/ nor sys/", ErrBadRoot, root)
	}
	s := &Snapshot{Live: c.live}
	c.kernel(s)
	c.cmdline(s)
	c.vulnerabilities(s)
	c.cpu(s)
	readCmdlineForArch(s)
	c.smt(s)
	c.bootID(s)
	c.memory(s)
	c.cpufreq(s)
	c.thp(s)
	c.osRelease(s)
	c.speculation(s)
	c.hypervisor(s)
	c.wsl(ctx, s)
	if c.live {
		s.GoVersion = runtime.Version()
		s.GoToolchain = goToolchain(ctx)
	}
	s.Absent, s.Unreadable = c.notes.Absent, c.notes.Unreadable
	return s, nil
}
