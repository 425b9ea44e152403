package rootfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree is a fake root: a regular file, a link inside, a link out of the
// root to a secret, a FIFO, a directory and a file larger than MaxRead.
func tree(t *testing.T) string {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("top secret\n"), 0o600)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proc/sys"), 0o755)
	os.WriteFile(filepath.Join(root, "proc/cmdline"), []byte("quiet mitigations=off\n\x00"), 0o644)
	os.Symlink("cmdline", filepath.Join(root, "proc/inside"))
	os.Symlink(secret, filepath.Join(root, "proc/outside"))
	os.Symlink("../../"+filepath.Base(filepath.Dir(secret))+"/secret", filepath.Join(root, "proc/up"))
	if err := syscall.Mkfifo(filepath.Join(root, "proc/fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "proc/big"), bytes.Repeat([]byte("x"), MaxRead+10), 0o644)
	return root
}

// TestFakeRoot: files and links inside the root read; a link out of it,
// absolute or up, is refused and never read; a FIFO and a directory are
// refused without blocking; reads are capped; absent files say so.
func TestFakeRoot(t *testing.T) {
	f, err := Open(tree(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Live() {
		t.Error("a fake root is not live")
	}
	for _, p := range []string{"proc/cmdline", "/proc/cmdline", "proc/inside", "/../proc/cmdline"} {
		if s, err := f.ReadText(p); err != nil || s != "quiet mitigations=off" {
			t.Errorf("%s: %q, %v", p, s, err)
		}
	}
	for _, p := range []string{"proc/outside", "proc/up"} {
		b, err := f.ReadFile(p)
		if err == nil || strings.Contains(string(b), "secret") {
			t.Errorf("%s: read %q, %v: a link out of the root was followed", p, b, err)
		}
	}
	if _, err := f.ReadFile("proc/fifo"); !errors.Is(err, ErrNotRegular) || ErrText(err) != "not a regular file" {
		t.Errorf("fifo: %v", err)
	}
	if _, err := f.ReadFile("proc/sys"); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("directory: %v", err)
	}
	if b, err := f.ReadFile("proc/big"); err != nil || len(b) != MaxRead {
		t.Errorf("big: %d bytes, %v", len(b), err)
	}
	if _, err := f.ReadFile("proc/absent"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
	if err := f.Regular("proc/cmdline", "proc/fifo"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Regular: %v", err)
	}
	if !f.IsDir("proc") || f.IsDir("proc/cmdline") || !f.Exists("proc/outside") || f.Exists("proc/absent") {
		t.Error("IsDir/Exists")
	}
	ents, err := f.ReadDir("/proc")
	if err != nil || len(ents) != 7 || ents[0].Name() != "big" || ents[6].Name() != "up" {
		t.Errorf("ReadDir: %v, %v", ents, err)
	}
	var n Notes
	n.Note("proc/absent", &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist})
	_, err = f.ReadFile("proc/fifo")
	n.Note("/proc/fifo", err)
	n.Note("proc/cmdline", nil)
	if len(n.Absent) != 1 || n.Absent[0] != "/proc/absent" || len(n.Unreadable) != 1 || n.Unreadable[0] != (FileError{"/proc/fifo", "not a regular file"}) {
		t.Errorf("notes: %+v", n)
	}
}

// TestLive: the running machine reads by path; a character device that
// never ends is refused, not read forever.
func TestLive(t *testing.T) {
	f, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	if !f.Live() || f.Path("proc/self") != "/proc/self" {
		t.Errorf("live: %v %s", f.Live(), f.Path("proc/self"))
	}
	if _, err := f.ReadFile("/dev/zero"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
	if s, err := f.ReadText("proc/self/comm"); err != nil || s == "" {
		t.Errorf("proc/self/comm: %q, %v", s, err)
	}
}

// TestOpenBad: a root that is absent or a file is an error; a nil FS
// holds nothing.
func TestOpenBad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Open(file); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("file: %v", err)
	}
	if _, err := Open(filepath.Join(file, "absent")); err == nil {
		t.Error("absent root opened")
	}
	var f *FS
	if _, err := f.ReadFile("proc/cmdline"); !errors.Is(err, fs.ErrNotExist) || f.Exists("x") || f.Close() != nil {
		t.Errorf("nil FS: %v", err)
	}
}

// FuzzRel: whatever the path, Rel stays inside the root.
func FuzzRel(f *testing.F) {
	for _, s := range []string{"", "/", "..", "../../etc/passwd", "/proc/../../x", "a//b/./c", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		r := Rel(p)
		if r == "" || strings.HasPrefix(r, "/") || r == ".." || strings.HasPrefix(r, "../") {
			t.Fatalf("Rel(%q) = %q leaves the root", p, r)
		}
		if !filepath.IsLocal(r) && r != "." {
			t.Fatalf("Rel(%q) = %q is not local", p, r)
		}
	})
}
