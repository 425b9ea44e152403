package testutil

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write makes the file dir/rel with text and mode perm.
func write(t *testing.T, dir, rel, text string, perm fs.FileMode) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
}

// TestRoot: the base is copied without the removed files, the overlay
// replaces and adds files; bytes, permission bits and links inside the
// tree are kept; the source trees are not touched.
func TestRoot(t *testing.T) {
	base, over := t.TempDir(), t.TempDir()
	write(t, base, "proc/cmdline", "quiet\n", 0o644)
	write(t, base, "proc/version", "Linux 6.8\n", 0o644)
	write(t, base, "sys/vuln/meltdown", "Mitigation: PTI\n", 0o444)
	write(t, base, "usr/bin/tool", "#!/bin/sh\n", 0o755)
	if err := os.Symlink("../proc/version", filepath.Join(base, "sys", "version")); err != nil {
		t.Fatal(err)
	}
	write(t, over, "proc/cmdline", "quiet mitigations=off\n", 0o644)
	write(t, over, "etc/default/grub", "GRUB_DEFAULT=0\n", 0o600)

	root := Root(t, base, over, "sys/vuln/meltdown")
	for rel, want := range map[string]string{
		"proc/cmdline":     "quiet mitigations=off\n",
		"proc/version":     "Linux 6.8\n",
		"usr/bin/tool":     "#!/bin/sh\n",
		"etc/default/grub": "GRUB_DEFAULT=0\n",
		"sys/version":      "Linux 6.8\n", // through the link
	} {
		if b, err := os.ReadFile(filepath.Join(root, rel)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", rel, b, err, want)
		}
	}
	for rel, want := range map[string]fs.FileMode{"usr/bin/tool": 0o755, "etc/default/grub": 0o600, "proc/version": 0o644} {
		if fi, err := os.Stat(filepath.Join(root, rel)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", rel, fi.Mode(), err, want)
		}
	}
	if l, err := os.Readlink(filepath.Join(root, "sys", "version")); err != nil || l != "../proc/version" {
		t.Errorf("link = %q, %v", l, err)
	}
	if _, err := os.Lstat(filepath.Join(root, "sys", "vuln", "meltdown")); !os.IsNotExist(err) {
		t.Errorf("the removed file is there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(base, "proc", "cmdline")); string(b) != "quiet\n" {
		t.Errorf("the base changed: %q", b)
	}
	if !strings.HasPrefix(root, os.TempDir()) || root == base {
		t.Errorf("root %s is not a new temporary folder", root)
	}
}

// TestRootRefuses: a link out of the tree (absolute or climbing out), a
// FIFO and the removal of a file the base lacks are refused.
func TestRootRefuses(t *testing.T) {
	for name, make := range map[string]func(dir string) error{
		"absolute link": func(dir string) error { return os.Symlink("/proc/cpuinfo", filepath.Join(dir, "cpuinfo")) },
		"link out":      func(dir string) error { return os.Symlink("../../../etc/passwd", filepath.Join(dir, "sub", "passwd")) },
		"fifo":          func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644) },
	} {
		src := t.TempDir()
		write(t, src, "sub/file", "x\n", 0o644)
		if err := make(src); err != nil {
			t.Fatal(err)
		}
		err := copyTree(filepath.Join(t.TempDir(), "dst"), src, nil)
		if err == nil || !strings.Contains(err.Error(), "not copied") {
			t.Errorf("%s: copied (%v)", name, err)
		}
	}
	base := t.TempDir()
	write(t, base, "proc/cmdline", "quiet\n", 0o644)
	r := &recorder{TB: t}
	Root(r, base, "", "proc/version")
	if !r.failed {
		t.Error("removing a file the base lacks passed")
	}
}

// TestLayersManifest: the manifest's lines and its mistakes.
func TestLayersManifest(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "roots.txt", "# comment\n\na from intel-baremetal\nb from wsl2-intel-on\na without proc/cmdline\n", 0o644)
	ls, err := readLayers(dir)
	if err != nil || len(ls) != 2 || ls[0].Name != "a" || ls[0].Base != SysinfoRoot("intel-baremetal") ||
		ls[0].Overlay != filepath.Join(dir, "roots", "a") || len(ls[0].Without) != 1 || ls[1].Without != nil {
		t.Fatalf("%+v, %v", ls, err)
	}
	for _, bad := range []string{"a from\n", "a to b\n", "a from x\na from y\n", "a without proc/cmdline\n", "a from x y\n"} {
		write(t, dir, "roots.txt", bad, 0o644)
		if _, err := readLayers(dir); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestLayersAreMinimal: every committed manifest assembles, and each file
// an overlay holds differs from its base's (a copy would be a second
// owner of the same bytes).
func TestLayersAreMinimal(t *testing.T) {
	for _, dir := range []string{AdviseRoots(), filepath.Join(internalDir(), "attribute", "testdata")} {
		for _, l := range Layers(t, dir) {
			Root(t, l.Base, l.Overlay, l.Without...)
			filepath.WalkDir(l.Overlay, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					t.Fatal(err)
				}
				if d.IsDir() {
					return nil
				}
				rel, _ := filepath.Rel(l.Overlay, path)
				mine, _ := os.ReadFile(path)
				if theirs, err := os.ReadFile(filepath.Join(l.Base, rel)); err == nil && bytes.Equal(mine, theirs) {
					t.Errorf("%s: %s is the base's file (drop it from the overlay)", l.Name, rel)
				}
				return nil
			})
		}
	}
}
