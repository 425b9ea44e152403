// Package tempdir makes sectax's temporary folders with an owner marker
// and removes those whose owner is gone: go-build's GOCACHE and GOTMPDIR,
// and a lab boot's initramfs, console log and result channel.
package tempdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"
)

// Every folder Make creates carries an owner marker: the pid of the sectax that made them, that process's start
// time (clock ticks since boot, field 22 of /proc/PID/stat) and the boot id.
// A sectax killed with SIGKILL cannot remove its folder; a later run finds
// it with RemoveStaleTemps and removes it once the owner is provably gone.
// pid alone is not enough (pids are reused), start time alone is not
// enough across a reboot, so all three must match for the owner to count
// as alive.

// Prefix starts the name of every folder Make creates.
const Prefix = "sectax-"

// ownerMarker is the name of the marker file inside such a folder.
const ownerMarker = ".sectax-owner"

// Make creates a temporary folder named Prefix+name+random under
// os.TempDir() (mode 0700) and writes the owner marker into it. It first
// checks that no other user may rename in os.TempDir() or above
// (CheckParent): a folder another user could swap for one of theirs is
// refused, naming the fix.
func Make(name string) (string, error) { return MakeIn(os.TempDir(), name) }

// MakeIn is Make under parent instead of os.TempDir() (the test
// PostgreSQL cluster's /dev/shm).
func MakeIn(parent, name string) (string, error) {
	if err := CheckParent(parent); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, Prefix+name+"*")
	if err != nil {
		return "", err
	}
	start, err := procStartTime(os.Getpid())
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("read own start time: %w", err)
	}
	marker := fmt.Sprintf("pid %d\nstart %d\nboot %s\n", os.Getpid(), start, bootID())
	if err := os.WriteFile(filepath.Join(dir, ownerMarker), []byte(marker), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// CheckParent refuses a folder, or a folder above it, in which a user
// other than this one and root may rename entries: one owned by another
// user, or one that others may write without the sticky bit (a sticky
// /tmp owned by root is fine). Links on the way are followed as the
// kernel follows them when sectax later makes its folder there.
func CheckParent(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("temporary folder %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("temporary folder %s: %w: set TMPDIR to a folder of your own", dir, err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		owner := int(st.Uid) == os.Geteuid() || st.Uid == 0
		othersWrite := st.Mode&0o022 != 0 && st.Mode&syscall.S_ISVTX == 0
		if !fi.IsDir() || !owner || othersWrite {
			return fmt.Errorf("temporary folder %s: %s is owned by uid %d with mode %#o, so another user may rename sectax's files in it: refused; set TMPDIR to a folder only you and root may write (e.g. mkdir -m 0700 ~/tmp and TMPDIR=~/tmp)",
				dir, d, st.Uid, fi.Mode().Perm()|modeBits(fi.Mode()))
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// modeBits are the sticky, setgid and setuid bits of m as permission bits.
func modeBits(m fs.FileMode) fs.FileMode {
	var b fs.FileMode
	if m&fs.ModeSticky != 0 {
		b |= 0o1000
	}
	if m&fs.ModeSetgid != 0 {
		b |= 0o2000
	}
	if m&fs.ModeSetuid != 0 {
		b |= 0o4000
	}
	return b
}

// Stale is a temporary folder left by a sectax that is gone.
type Stale struct {
	Dir string
	PID int   // the owner's pid
	Err error // why it could not be removed (nil: removed)
}

// RemoveStale removes the folders Make created under os.TempDir() whose
// owner is no longer running, and returns them. A folder without a
// readable marker (being created, or made by an older sectax), whose owner
// is alive, that is a symbolic link or that belongs to another user is
// never touched.
func RemoveStale() []Stale { return RemoveStaleIn(os.TempDir()) }

// RemoveStaleIn is RemoveStale under parent (MakeIn's).
func RemoveStaleIn(parent string) []Stale {
	dirs, _ := filepath.Glob(filepath.Join(parent, Prefix+"*"))
	var out []Stale
	for _, dir := range dirs {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || !ownedByMe(fi) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ownerMarker))
		if err != nil {
			continue
		}
		pid, start, boot, ok := parseOwner(string(b))
		if !ok || ownerAlive(pid, start, boot) {
			continue
		}
		out = append(out, Stale{Dir: dir, PID: pid, Err: os.RemoveAll(dir)})
	}
	return out
}

// ownedByMe reports whether fi belongs to this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// parseOwner reads a marker written by Make.
func parseOwner(s string) (pid int, start uint64, boot string, ok bool) {
	var havePID, haveStart bool
	for _, line := range strings.Split(s, "\n") {
		k, v, _ := strings.Cut(line, " ")
		var err error
		switch k {
		case "pid":
			pid, err = strconv.Atoi(v)
			havePID = err == nil && pid > 0
		case "start":
			start, err = strconv.ParseUint(v, 10, 64)
			haveStart = err == nil
		case "boot":
			boot = v
		}
	}
	return pid, start, boot, havePID && haveStart
}

// ownerAlive reports whether the process that wrote the marker still runs.
// When it cannot tell (no /proc, no permission), it says alive.
func ownerAlive(pid int, start uint64, boot string) bool {
	if cur := bootID(); boot != "" && cur != "" && boot != cur {
		return false // written before a reboot
	}
	st, err := procStat(pid)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return false
	}
	if err != nil {
		return true // no /proc, no permission, a line it cannot parse
	}
	return st.Starttime == start && st.State != "Z" && st.State != "X"
}

// procStartTime returns the start time of pid (field 22 of /proc/PID/stat).
func procStartTime(pid int) (uint64, error) {
	st, err := procStat(pid)
	return st.Starttime, err
}

// procStat is /proc/PID/stat as procfs parses it (the command name, in
// parentheses, may hold spaces and parentheses itself).
func procStat(pid int) (procfs.ProcStat, error) {
	pfs, err := procfs.NewFS("/proc")
	if err != nil {
		return procfs.ProcStat{}, err
	}
	p, err := pfs.Proc(pid)
	if err != nil {
		return procfs.ProcStat{}, err
	}
	return p.Stat()
}

// bootID is the kernel's boot id ("" when unknown).
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
