package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRootedWrites: sectax's writes below a root make missing folders,
// replace a link at the file's name instead of following it, never follow
// a folder that is a link (out of the root or inside it), never change
// the mode of a folder they did not make, and refuse a folder others may
// write.
func TestRootedWrites(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.Symlink(out, filepath.Join(root, "etc/systemd")) // a folder linked out of the root
	os.Symlink("../etc", filepath.Join(root, "var"))    // a folder linked inside it
	os.MkdirAll(filepath.Join(root, "srv/open"), 0o777) // a folder anyone may write
	os.Chmod(filepath.Join(root, "srv/open"), 0o777)    //
	os.MkdirAll(filepath.Join(root, "opt/mine"), 0o751) // an existing folder of ours
	os.Symlink(filepath.Join(out, "victim"), filepath.Join(root, "opt/mine/f"))
	os.WriteFile(filepath.Join(out, "victim"), []byte("victim"), 0o644)
	w, err := OpenWrite(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, p := range []string{"etc/systemd/system", "var/lib/sectax", "srv/open/x"} {
		if _, err := w.MkdirAll(p, 0o700); !errors.Is(err, ErrNotOwnFolder) {
			t.Errorf("MkdirAll %s: %v; want it refused", p, err)
		}
		if err := w.CheckFolders(p); err == nil {
			t.Errorf("CheckFolders %s passed", p)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Fatalf("written outside the root: %v", ents)
	}
	made, err := w.MkdirAll("opt/mine/new/deeper", 0o700)
	if err != nil || len(made) != 2 || made[0] != "opt/mine/new" {
		t.Fatalf("MkdirAll: %v %v", made, err)
	}
	if fi, _ := os.Stat(filepath.Join(root, "opt/mine")); fi.Mode().Perm() != 0o751 {
		t.Fatalf("the mode of an existing folder changed: %v", fi.Mode())
	}
	if fi, _ := os.Stat(filepath.Join(root, "opt/mine/new")); fi.Mode().Perm() != 0o700 {
		t.Fatalf("a made folder: %v", fi.Mode())
	}
	if err := w.WriteFile("opt/mine/f", []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "victim")); string(b) != "victim" {
		t.Fatalf("the write followed the link: victim holds %q", b)
	}
	fi, err := os.Lstat(filepath.Join(root, "opt/mine/f"))
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the written file: %v %v", fi, err)
	}
	if err := w.Symlink("f", "opt/mine/l"); err != nil {
		t.Fatal(err)
	}
	if d, err := w.Readlink("opt/mine/l"); err != nil || d != "f" {
		t.Fatalf("Readlink: %q %v", d, err)
	}
	if err := w.Symlink("/etc/shadow", "opt/mine/abs"); err == nil {
		t.Fatal("an absolute link target was made")
	}
	if err := w.Remove("opt/mine/l"); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("etc/systemd/x", nil, 0o644); err == nil {
		t.Fatal("a write through a folder linked out of the root")
	}
	if _, err := os.Lstat(filepath.Join(out, "x")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("written outside the root: %v", err)
	}
}
