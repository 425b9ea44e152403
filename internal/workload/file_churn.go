package workload

import (
	"context"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/mitigation"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// FileChurn creates, writes, stats, renames and unlinks many small files in
// a temporary directory: the shape of package managers, unpackers and
// indexers. It runs on the filesystem of `dir`; on WSL the Linux disk and
// /mnt/c differ enormously, which is itself a finding.
type FileChurn struct{}

// fileChurnTmp is the value of dir that means $TMPDIR (or /tmp).
const fileChurnTmp = "$TMPDIR"

// fileChurnChunk is how many files pass between two looks at the context.
const fileChurnChunk = 256

// Info implements Workload.
func (FileChurn) Info() Info {
	return Info{
		ID:    "file-churn",
		Title: "create, write, stat, rename and unlink many small files",
		Stresses: Stress{Paths: []string{mitigation.TagEntryExit}, Note: "filesystem system calls (openat, write, close, newfstatat, renameat, unlinkat): " +
			"one kernel entry each, dentry and inode cache work, page-cache writes; no disk " +
			"flush unless fsync=yes",
			Pays: "kernel entry and exit: paid on six system calls a file (create, write, close, stat, rename, unlink)"},
		Params: []ParamSpec{
			{Key: "files", Help: "files per repetition (each is created, written, closed, stat'ed, renamed and unlinked)",
				Default: int64(5000), Quick: int64(500), Min: 1, Max: 10_000_000},
			{Key: "size", Help: "bytes written to each file",
				Default: int64(4096), Min: 0, Max: 1 << 20},
			{Key: "fsync", Help: "yes: fsync each file before closing it (measures the disk or hypervisor flush, not only the kernel)",
				Default: "no", Choices: []string{"no", "yes"}},
			{Key: "dir", Help: "directory whose filesystem is churned; a temporary subdirectory is made and removed ($TMPDIR: the temporary directory)",
				Default: fileChurnTmp, Free: true},
		},
		Metrics: []MetricSpec{
			{Name: "usecs_per_file", Unit: "µs/file", Better: "lower", Help: "microseconds per file for the whole create…unlink cycle"},
			{Name: "files_per_sec", Unit: "files/s", Better: "higher", Help: "files through the whole cycle per second"},
		},
	}
}

// Cost implements Estimator: 275 µs a file.
func (FileChurn) Cost(p Params) time.Duration { return perUnit(p.Int("files"), 275e-6) }

func fileChurnDir(p Params) string {
	if d := p.Str("dir"); d != "" && d != fileChurnTmp {
		return d
	}
	return os.TempDir()
}

// Preflight implements Preflighter: a missing dir is a usage error naming
// it.
func (FileChurn) Preflight(p Params) error {
	return checkDir("file-churn.dir", fileChurnDir(p))
}

// Run implements Workload. The timed window holds four phases over all
// files, in the order an unpacker and a later cleanup work: create+write
// (+fsync)+close every file, stat every file, rename every file, unlink
// every file. Everything is a raw system call on a directory descriptor
// (the *at calls), with the names prepared before the window and garbage
// collection off. The temporary directory is removed on every path.
func (FileChurn) Run(ctx context.Context, _ Env, p Params) (s Sample, err error) {
	n, size, doSync := int(p.Int("files")), p.Int("size"), p.Str("fsync") == "yes"
	base := fileChurnDir(p)
	if err := checkDir("file-churn.dir", base); err != nil {
		return Sample{}, err
	}
	tmp, err := os.MkdirTemp(base, "sectax-file-churn-*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Sample{}, &UsageError{Msg: fmt.Sprintf("file-churn.dir=%s: no such directory (create it or give another path)", base)}
		}
		return Sample{}, fmt.Errorf("file-churn: %w", err)
	}
	defer removeTemp(tmp, &s, &err)
	dfd, err := unix.Open(tmp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Sample{}, fmt.Errorf("file-churn: open %s: %w", tmp, err)
	}
	defer unix.Close(dfd)

	names, renamed := make([]string, n), make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("f%07d.dat", i)
		renamed[i] = fmt.Sprintf("g%07d.dat", i)
	}
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte('a' + i%26)
	}
	var st unix.Stat_t
	defer gcOff()()

	start := time.Now()
	phases := []func(i int) error{
		func(i int) error { return churnCreate(dfd, names[i], buf, doSync) },
		func(i int) error {
			if err := eintr(func() error { return unix.Fstatat(dfd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
				return fmt.Errorf("stat %s: %w", names[i], err)
			}
			if st.Size != size {
				return fmt.Errorf("stat %s: size %d, wrote %d", names[i], st.Size, size)
			}
			return nil
		},
		func(i int) error {
			if err := eintr(func() error { return unix.Renameat(dfd, names[i], dfd, renamed[i]) }); err != nil {
				return fmt.Errorf("rename %s: %w", names[i], err)
			}
			return nil
		},
		func(i int) error {
			if err := eintr(func() error { return unix.Unlinkat(dfd, renamed[i], 0) }); err != nil {
				return fmt.Errorf("unlink %s: %w", renamed[i], err)
			}
			return nil
		},
	}
	for _, phase := range phases {
		for i := 0; i < n; i++ {
			if i%fileChurnChunk == 0 && ctx.Err() != nil {
				return Sample{}, ctx.Err()
			}
			if err := phase(i); err != nil {
				return Sample{}, fmt.Errorf("file-churn in %s: %w", base, err)
			}
		}
	}
	secs := time.Since(start).Seconds()
	s = Sample{Values: map[string]float64{
		"usecs_per_file": secs * 1e6 / float64(n),
		"files_per_sec":  float64(n) / secs,
	}}
	var fs unix.Statfs_t
	if unix.Fstatfs(dfd, &fs) == nil {
		if w := fileChurnFSNote(base, int64(fs.Type)); w != "" {
			s.Warnings = append(s.Warnings, w)
		}
	}
	return s, nil
}

// fileChurnFSNote returns a note for filesystems whose results mean
// something else than a local disk's, or "".
func fileChurnFSNote(dir string, magic int64) string {
	switch magic {
	case unix.TMPFS_MAGIC:
		return fmt.Sprintf("file-churn dir %s is on tmpfs: memory only, no disk (set file-churn.dir to a disk-backed directory to include one)", dir)
	case unix.V9FS_MAGIC:
		return fmt.Sprintf("file-churn dir %s is on 9p (a host-shared filesystem such as WSL's /mnt/c): the host's file server dominates", dir)
	case unix.FUSE_SUPER_MAGIC:
		return fmt.Sprintf("file-churn dir %s is on FUSE or virtiofs: a user-space or host file server takes part", dir)
	}
	return ""
}

// churnCreate creates name in dfd, writes buf (and fsyncs) and closes it.
func churnCreate(dfd int, name string, buf []byte, doSync bool) error {
	var fd int
	err := eintr(func() (err error) {
		fd, err = unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
		return err
	})
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	for b := buf; len(b) > 0; {
		k, err := unix.Write(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			unix.Close(fd)
			return fmt.Errorf("write %s: %w", name, err)
		}
		b = b[k:]
	}
	if doSync {
		if err := eintr(func() error { return unix.Fsync(fd) }); err != nil {
			unix.Close(fd)
			return fmt.Errorf("fsync %s: %w", name, err)
		}
	}
	if err := unix.Close(fd); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	return nil
}

// eintr retries f while it fails with EINTR (the Go runtime's preemption
// signal interrupts slow filesystem calls, on FUSE and 9p for instance).
func eintr(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
