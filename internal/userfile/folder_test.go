package userfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCreateInPlanted: a name sectax chooses inside a folder the user named
// (sectax man DIR, compare --png DIR) is written new whatever another user
// planted there: a link to a private file (followed by -o, not here), a
// dangling link, a hard link, a FIFO (which would block an open), a
// socket, a character device. The planted name becomes sectax's regular
// file; what it pointed at is untouched; no temporary file is left.
func TestCreateInPlanted(t *testing.T) {
	private := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(private, []byte("root only"), 0o600); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	plant := map[string]func(p string) error{
		"symlink":  func(p string) error { return os.Symlink(private, p) },
		"dangling": func(p string) error { return os.Symlink(filepath.Join(elsewhere, "new"), p) },
		"hardlink": func(p string) error { return os.Link(private, p) },
		"fifo":     func(p string) error { return unix.Mkfifo(p, 0o666) },
		"socket": func(p string) error {
			l, err := net.Listen("unix", p)
			if err == nil {
				t.Cleanup(func() { l.Close() })
			}
			return err
		},
		"chardev": func(p string) error {
			if os.Geteuid() != 0 {
				t.Skip("mknod needs root")
			}
			return unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))) // /dev/null's numbers
		},
	}
	for kind, make := range plant {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			name := "sectax-run.1"
			if err := make(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			o, err := CreateIn(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.Write([]byte("page")); err != nil {
				t.Fatal(err)
			}
			if err := o.Finish(nil); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(filepath.Join(dir, name))
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
				t.Fatalf("%s is %v, %v; want a regular 0644 file", name, fi, err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "page" {
				t.Fatalf("%s holds %q", name, b)
			}
			if b, _ := os.ReadFile(private); string(b) != "root only" {
				t.Fatalf("the private file now holds %q", b)
			}
			if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
				t.Fatalf("a dangling link's target was created: %v", ents)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Fatalf("left in the folder: %v", ents)
			}
		})
	}
}

// TestCreateInRefuses: a folder at the name is refused (nothing inside it
// written), and a name that is not one name is refused before anything is
// made.
func TestCreateInRefuses(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "x.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	o, err := CreateIn(dir, "x.png")
	if err != nil {
		t.Fatal(err)
	}
	o.Write([]byte("png"))
	if err := o.Finish(nil); err == nil {
		t.Fatal("a folder at the name was replaced")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left in the folder: %v", ents)
	}
	for _, bad := range []string{"", ".", "..", "a/b", "../x"} {
		if _, err := CreateIn(dir, bad); err == nil {
			t.Errorf("CreateIn(%q) accepted", bad)
		}
	}
}

// TestTempFolderSwapped: the temporary file and the rename are relative to
// the folder opened once; a folder renamed away and replaced by a link
// after the temporary file is made does not redirect the rename.
func TestTempFolderSwapped(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	os.Mkdir(dir, 0o755)
	victim := t.TempDir()
	tmp, err := NewTemp(filepath.Join(dir, "f"), ".f-*", 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	tmp.Write([]byte("data"))
	if err := os.Rename(dir, filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, dir); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Commit(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(victim); len(ents) != 0 {
		t.Fatalf("written through the swapped link: %v", ents)
	}
	if b, err := os.ReadFile(filepath.Join(base, "moved", "f")); err != nil || string(b) != "data" {
		t.Fatalf("the opened folder holds %q, %v", b, err)
	}
}

// TestCheckAbove: the folders above a place sectax makes must be root's or
// this user's, writable by others only with the sticky bit; a link among
// them is resolved first.
func TestCheckAbove(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another uid needs root")
	}
	base := t.TempDir()
	theirs := filepath.Join(base, "theirs")
	os.Mkdir(theirs, 0o755)
	os.Chown(theirs, 65534, 65534)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o777)
	sticky := filepath.Join(base, "sticky")
	os.Mkdir(sticky, 0o755)
	os.Chmod(sticky, os.ModeSticky|0o777)
	os.Symlink(theirs, filepath.Join(base, "link"))
	for _, bad := range []string{filepath.Join(theirs, "a", "b"), filepath.Join(open, "a"), filepath.Join(base, "link", "a")} {
		var ff *ForeignFolderError
		if err := CheckAbove(bad); !errors.As(err, &ff) {
			t.Errorf("CheckAbove(%s) = %v", bad, err)
		}
	}
	for _, ok := range []string{filepath.Join(sticky, "a", "b"), filepath.Join(base, "mine")} {
		if err := CheckAbove(ok); err != nil {
			t.Errorf("CheckAbove(%s) = %v", ok, err)
		}
	}
}
