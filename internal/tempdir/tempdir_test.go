package tempdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
