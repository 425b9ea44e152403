package tempdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoveStale: a folder whose owner is gone (a real child that
// exited, a pid reused by a process started later, another boot) is
// removed; a live owner's folder, one without a marker and one with a
// garbled marker are never touched.
func TestRemoveStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	live, err := Make("go-build-")
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	myStart, _ := procStartTime(os.Getpid())
	mk := func(name, marker string) string {
		d := filepath.Join(tmp, Prefix+"go-build-"+name)
		os.MkdirAll(filepath.Join(d, "cache", "x"), 0o700)
		if marker != "" {
			os.WriteFile(filepath.Join(d, ownerMarker), []byte(marker), 0o600)
		}
		return d
	}
	dead := mk("dead", fmt.Sprintf("pid %d\nstart 1\nboot %s\n", child.Process.Pid, bootID()))
	reused := mk("reused", fmt.Sprintf("pid %d\nstart %d\nboot %s\n", os.Getpid(), myStart+1, bootID()))
	reboot := mk("reboot", fmt.Sprintf("pid %d\nstart %d\nboot 00000000-0000-0000-0000-000000000000\n", os.Getpid(), myStart))
	bare := mk("bare", "")
	// A link planted at a sectax-* name, to a folder with a dead owner's
	// marker, is not followed.
	target := t.TempDir()
	os.WriteFile(filepath.Join(target, ownerMarker), []byte(fmt.Sprintf("pid %d\nstart 1\nboot %s\n", child.Process.Pid, bootID())), 0o600)
	link := filepath.Join(tmp, Prefix+"link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	garbled := mk("garbled", "pid x\n")

	got := map[string]int{}
	for _, st := range RemoveStale() {
		if st.Err != nil {
			t.Errorf("%s: %v", st.Dir, st.Err)
		}
		got[st.Dir] = st.PID
	}
	for _, d := range []string{dead, reused, reboot} {
		if _, ok := got[d]; !ok {
			t.Errorf("%s not reported as removed", d)
		}
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s still exists", d)
		}
	}
	for _, d := range []string{live, bare, garbled, link, target} {
		if _, ok := got[d]; ok {
			t.Errorf("%s reported as removed", d)
		}
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was touched: %v", d, err)
		}
	}
}

func FuzzParseOwner(f *testing.F) {
	f.Add("pid 1234\nstart 98765\nboot 0f\n")
	f.Add("pid x")
	f.Add(")")
	f.Fuzz(func(t *testing.T, s string) {
		parseOwner(s)
	})
}

// TestCheckParent: Make refuses a $TMPDIR, or a folder above it, in which
// another user may rename (writable by others without the sticky bit, or
// owned by another user), naming TMPDIR; a sticky shared folder and a
// private one are accepted.
func TestCheckParent(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode, uid int) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		if uid >= 0 {
			if err := os.Chown(d, uid, -1); err != nil {
				t.Skipf("cannot give a folder to uid %d: %v", uid, err)
			}
		}
		return d
	}
	private := mk("private", 0o700, -1)
	sticky := mk("sticky", 0o777|os.ModeSticky, -1)
	open := mk("open", 0o777, -1)
	below := mk("open/mine", 0o700, -1)
	for _, d := range []string{private, sticky} {
		t.Setenv("TMPDIR", d)
		dir, err := Make("check-")
		if err != nil {
			t.Errorf("TMPDIR=%s: %v", d, err)
			continue
		}
		os.RemoveAll(dir)
	}
	refused := []string{open, below}
	if os.Geteuid() == 0 {
		refused = append(refused, mk("theirs", 0o755, 65534))
	}
	for _, d := range refused {
		t.Setenv("TMPDIR", d)
		dir, err := Make("check-")
		if err == nil {
			os.RemoveAll(dir)
			t.Errorf("TMPDIR=%s accepted", d)
			continue
		}
		if !strings.Contains(err.Error(), "set TMPDIR") || strings.Contains(err.Error(), "\n") {
			t.Errorf("TMPDIR=%s: %v", d, err)
		}
		if left, _ := filepath.Glob(filepath.Join(d, Prefix+"*")); len(left) > 0 {
			t.Errorf("TMPDIR=%s: made %v", d, left)
		}
	}
}

// TestMakeIn: a folder made under another parent carries the marker, is
// left while its owner lives and removed once a dead owner's marker is
// found there; the temporary directory's own folders are not looked at.
func TestMakeIn(t *testing.T) {
	parent, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	live, err := MakeIn(parent, "pg-")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(live) != parent || !strings.HasPrefix(filepath.Base(live), Prefix+"pg-") {
		t.Fatalf("MakeIn made %s, not a %spg-* folder in %s", live, Prefix, parent)
	}
	if _, err := os.Stat(filepath.Join(live, ownerMarker)); err != nil {
		t.Fatalf("no owner marker: %v", err)
	}
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("pid %d\nstart 1\nboot %s\n", child.Process.Pid, bootID())
	var gone []string
	for _, d := range []string{parent, tmp} {
		p := filepath.Join(d, Prefix+"pg-dead")
		os.Mkdir(p, 0o700)
		os.WriteFile(filepath.Join(p, ownerMarker), []byte(dead), 0o600)
		gone = append(gone, p)
	}
	if st := RemoveStaleIn(parent); len(st) != 1 || st[0].Dir != gone[0] || st[0].Err != nil {
		t.Fatalf("RemoveStaleIn(%s) = %+v, want %s alone", parent, st, gone[0])
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live owner's folder was removed: %v", err)
	}
	if _, err := os.Stat(gone[1]); err != nil {
		t.Errorf("a folder of TMPDIR was looked at: %v", err)
	}
}
