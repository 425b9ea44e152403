package proof

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/userfile"
)

// Schema is the "schema" field of a stored proof.
const Schema = "sectax.proof/v1"

// MaxEntry bounds the bytes of one stored proof read back: a boot's
// files are a few KiB.
const MaxEntry = 1 << 20

// Key is what a stored observation answers for: the kernel image's bytes,
// the CPU QEMU presented, the accelerator, the vCPUs, the candidate
// command line, and what made the boot: the QEMU binary's bytes (which
// also fix what an unversioned CPU model such as Cascadelake-Server
// resolves to through QEMU's machine type) and the guest's /init's (the
// sectax that booted it). Anything else is another proof.
type Key struct {
	SHA256 string `json:"kernel_sha256"`
	CPU    string `json:"cpu"`
	Accel  string `json:"accel"`
	SMP    int    `json:"smp"`
	// Threads is 2 for a guest with SMT siblings (absent: 1, as before).
	Threads int    `json:"threads,omitempty"`
	Cmdline string `json:"cmdline"`
	QEMU    string `json:"qemu_sha256,omitempty"`
	Init    string `json:"init_sha256,omitempty"`
}

// name is the entry's file name: the key's hash.
func (k Key) name() string {
	b, _ := json.Marshal(k)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]) + ".json"
}

// Entry is one stored boot: its key, the image's release, the time it
// took to /init, and the guest's snapshot reduced to the files a proof
// reads (vulnerabilities, /proc/cmdline, SMT, the CPU's identity), as
// JSON checked again on load by vm.CheckObserved.
type Entry struct {
	Schema  string `json:"schema"`
	Key     Key    `json:"key"`
	Release string `json:"release"`
	// Boot is vm.EntryPVH for a boot started at the kernel's PVH entry
	// (vm.Direct); absent, through the bzImage. Not in the key: both show
	// the same files (the corpus holds boots of both).
	Boot     string          `json:"boot,omitempty"`
	ToInitS  float64         `json:"to_init_s"`
	Snapshot json.RawMessage `json:"snapshot"`
}

// Cache is the private per-user folder of stored proofs: never the shared
// sectax store, whose writers could forge advice. sectax makes it 0700,
// writes its files 0600, opens them without following links, reads only
// regular files of its own user, bounded, and parses them as untrusted.
type Cache struct {
	Dir string
	fd  int
}

// DefaultDir is the cache folder for a user: /var/cache/sectax/proofs for
// root, else $XDG_CACHE_HOME/sectax/proofs or ~/.cache/sectax/proofs.
func DefaultDir(euid int, getenv func(string) string) (string, error) {
	if euid == 0 {
		return "/var/cache/sectax/proofs", nil
	}
	if x := getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "sectax", "proofs"), nil
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".cache", "sectax", "proofs"), nil
	}
	return "", errors.New("the proof cache needs HOME or XDG_CACHE_HOME (an absolute path)")
}

// OpenCache opens (making it when absent) the folder dir: the folders
// sectax makes are 0700, and dir itself must be a folder, not a link, of
// this user, that no one else may enter or write.
func OpenCache(dir string) (*Cache, error) {
	// Before MkdirAll (nothing made inside another user's folder) and
	// after it (the parent as it is now).
	if err := checkParent(filepath.Dir(dir)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("proof cache %s: %w", dir, err)
	}
	if err := checkParent(filepath.Dir(dir)); err != nil {
		return nil, err
	}
	if err := unix.Mkdir(dir, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, fmt.Errorf("proof cache %s: %w", dir, err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("proof cache %s: not a folder sectax can use (a link or another file is in its place: remove it): %w", dir, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("proof cache %s: %w", dir, err)
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		unix.Close(fd)
		return nil, fmt.Errorf("proof cache %s: owned by uid %d with mode %#o, not this user's private folder (uid %d, 0700): refused; remove it and sectax makes it again", dir, st.Uid, st.Mode&0o777, os.Geteuid())
	}
	return &Cache{Dir: dir, fd: fd}, nil
}

// checkParent refuses the cache's parent folder unless it is a folder (not
// a link) of root or this user that no one else may write
// (rootfs.Private): whoever can write it could swap the cache folder.
// Root uses only root's; a user, their own (or root's). When it does not
// exist yet, the folders above it must pass userfile.CheckAbove: sectax
// makes nothing inside another user's folder.
func checkParent(parent string) error {
	fi, err := os.Lstat(parent)
	if errors.Is(err, fs.ErrNotExist) {
		var ff *userfile.ForeignFolderError
		if err := userfile.CheckAbove(parent); errors.As(err, &ff) {
			return fmt.Errorf("proof cache's folder %s would be made inside %v: refused; set XDG_CACHE_HOME to a folder of yours", parent, ff)
		} else if err != nil {
			return fmt.Errorf("proof cache's folder %s: %w", parent, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("proof cache's folder %s: %w", parent, err)
	}
	if !fi.IsDir() || !rootfs.Private(fi, 0o022) {
		uid := -1
		if o := userfile.OwnerOf(fi); o != nil {
			uid = o.UID
		}
		return fmt.Errorf("proof cache's folder %s is %s of uid %d with mode %#o, not a folder of this user (uid %d) or root that only its owner may write: refused; remove it or set XDG_CACHE_HOME", parent, userfile.Kind(fi.Mode()), uid, fi.Mode().Perm(), os.Geteuid())
	}
	return nil
}

// Close releases the folder.
func (c *Cache) Close() error { return unix.Close(c.fd) }

// ErrMiss is a key with no stored proof (or one stored for another key).
var ErrMiss = errors.New("no stored proof")

// Load reads the entry of k: ErrMiss when there is none or the file holds
// another key's proof; an error naming the file when it is not a regular
// file of this user's, is too large or does not parse.
func (c *Cache) Load(k Key) (*Entry, error) {
	e, err := c.read(k.name())
	if err != nil {
		return nil, err
	}
	if e.Key != k {
		return nil, ErrMiss
	}
	return e, nil
}

// MaxScan bounds the files Find reads.
const MaxScan = 10_000

// Find reads the entries stored for an image and a command line, under
// any CPU and accelerator (verify, which does not boot). Files that are
// refused are returned beside the entries found as one error: the file's
// own, or, for several, their count and the first (never a line a file).
func (c *Cache) Find(sha256, cmdline string) ([]*Entry, []error) {
	f, err := os.Open(c.Dir)
	if err != nil {
		return nil, []error{err}
	}
	names, _ := f.Readdirnames(MaxScan)
	f.Close()
	var out []*Entry
	var errs []error
	for _, n := range names {
		if !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, ".") {
			continue
		}
		e, err := c.read(n)
		switch {
		case errors.Is(err, ErrMiss):
		case err != nil:
			errs = append(errs, err)
		case e.Key.SHA256 == sha256 && e.Key.Cmdline == cmdline && e.Key.name() == n:
			out = append(out, e)
		}
	}
	if len(errs) > 1 {
		errs = []error{fmt.Errorf("%d files in the proof cache %s refused (links, other files, another user's, too large or not proofs); the first: %v", len(errs), c.Dir, errs[0])}
	}
	return out, errs
}

// read reads the file name of the folder as a stored proof.
func (c *Cache) read(name string) (*Entry, error) {
	p := filepath.Join(c.Dir, name)
	data, err := c.readFile(name, MaxEntry)
	if err != nil {
		return nil, err
	}
	e, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("stored proof %s: %v: refused; remove it and the proof boots again", p, err)
	}
	return e, nil
}

// readFile reads the file name of the folder, at most max bytes: ErrMiss
// when absent; refused (naming the file) when it is not a regular file of
// this user's that only this user may write, or holds more than max.
func (c *Cache) readFile(name string, max int64) ([]byte, error) {
	p := filepath.Join(c.Dir, name)
	fd, err := unix.Openat(c.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, ErrMiss
	}
	if err != nil {
		return nil, fmt.Errorf("stored proof %s: %v (a link or other file in sectax's cache): refused; remove it", p, err)
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("stored proof %s: %w", p, err)
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return nil, fmt.Errorf("stored proof %s: not a regular file: refused; remove it", p)
	case int(st.Uid) != os.Geteuid():
		return nil, fmt.Errorf("stored proof %s: owned by uid %d, not this user (%d): refused; remove it", p, st.Uid, os.Geteuid())
	case st.Mode&0o022 != 0:
		return nil, fmt.Errorf("stored proof %s: mode %#o lets others write it: refused; remove it", p, st.Mode&0o777)
	case st.Size > max:
		return nil, fmt.Errorf("stored proof %s: %d bytes, more than a proof holds (%d): refused; remove it", p, st.Size, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("stored proof %s: %w", p, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("stored proof %s: more than a proof holds (%d bytes): refused; remove it", p, max)
	}
	return data, nil
}

// OpenExisting opens the cache folder dir for reading only: nil, nil when
// there is none (verify makes nothing).
func OpenExisting(dir string) (*Cache, error) {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return OpenCache(dir)
}

// Parse reads a stored proof as untrusted text: the schema, a key with a
// sha256 and short fields, a bounded snapshot.
func Parse(data []byte) (*Entry, error) {
	if len(data) > MaxEntry {
		return nil, fmt.Errorf("%d bytes, more than a proof holds", len(data))
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("does not parse: %v", safetext.Clip(err.Error(), 200))
	}
	switch {
	case e.Schema != Schema:
		return nil, fmt.Errorf("schema %s, want %s", strconv.Quote(safetext.Clip(e.Schema, 40)), Schema)
	case len(e.Key.SHA256) != 64 || !isHex(e.Key.SHA256):
		return nil, errors.New("no kernel sha256 in its key")
	case !optionalHash(e.Key.QEMU) || !optionalHash(e.Key.Init):
		return nil, errors.New("a QEMU or /init sha256 of its key is not one")
	case e.Key.CPU == "" || len(e.Key.CPU) > 128 || len(e.Key.Accel) > 16 || len(e.Key.Cmdline) > 4096 || len(e.Release) > 256:
		return nil, errors.New("a field of its key is missing or too long")
	case e.Key.SMP < 1 || e.Key.SMP > 64:
		return nil, errors.New("vCPUs out of range")
	case len(e.Snapshot) == 0 || e.Snapshot[0] != '{':
		return nil, errors.New("no snapshot")
	case e.ToInitS < 0 || e.ToInitS > 24*3600:
		return nil, errors.New("a boot time out of range")
	}
	return &e, nil
}

// Store writes e under its key: a new 0600 file in the folder, synced
// and renamed over the old entry (never opened). What the reader would
// refuse (Parse: a field over its bound, a snapshot over MaxEntry) is not
// written: the error says why, and the next call boots again.
func (c *Cache) Store(e *Entry) error {
	e.Schema = Schema
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := Parse(data); err != nil {
		return fmt.Errorf("proof of %q not stored: %v", safetext.Clip(e.Key.Cmdline, 200), err)
	}
	return c.writeFile(e.Key.name(), data)
}

// writeFile writes data to the file name of the folder: a new 0600
// temporary file, synced and renamed over name.
func (c *Cache) writeFile(name string, data []byte) error {
	tmp := fmt.Sprintf(".%s.%d.tmp", name, os.Getpid())
	fd, err := unix.Openat(c.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("proof cache %s: %w", c.Dir, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = unix.Renameat(c.fd, tmp, c.fd, name)
	}
	if werr != nil {
		unix.Unlinkat(c.fd, tmp, 0)
		return fmt.Errorf("proof cache %s: %w", c.Dir, werr)
	}
	return nil
}

// optionalHash: s is empty (a proof stored before its key named QEMU and
// /init, never loaded for a key that does) or a sha256 in hex.
func optionalHash(s string) bool { return s == "" || len(s) == 64 && isHex(s) }

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}
