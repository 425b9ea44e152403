package proof

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheParentRefused: the cache's parent folder (…/sectax) is used
// only when it is a folder of this user or root that no one else may
// write: one of another user, one others may write (even 1777), and a
// link in its place are refused, nothing made inside; this user's own is
// used.
func TestCacheParentRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another uid needs root")
	}
	base := t.TempDir()
	plant := map[string]func(p string){
		"other user": func(p string) { os.Mkdir(p, 0o755); os.Chown(p, attacker, attacker) },
		"other user's private": func(p string) {
			os.Mkdir(p, 0o700)
			os.Chown(p, attacker, attacker)
		},
		"group writable": func(p string) { os.Mkdir(p, 0o700); os.Chmod(p, 0o770) },
		"sticky shared":  func(p string) { os.Mkdir(p, 0o700); os.Chmod(p, os.ModeSticky|0o777) },
		"link":           func(p string) { os.Symlink(t.TempDir(), p) },
	}
	for name, make := range plant {
		t.Run(name, func(t *testing.T) {
			parent := filepath.Join(base, strings.ReplaceAll(name, " ", "-"))
			make(parent)
			c, err := OpenCache(filepath.Join(parent, "proofs"))
			if err == nil {
				c.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %q", err)
			}
			if _, err := os.Lstat(filepath.Join(parent, "proofs")); err == nil {
				t.Error("the cache folder was made inside")
			}
		})
	}
	own := filepath.Join(base, "own")
	os.Mkdir(own, 0o755)
	c, err := OpenCache(filepath.Join(own, "proofs"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// TestFindOneError: several refused files give Find one error that counts
// them and names the first, not one a file (verify says it once).
func TestFindOneError(t *testing.T) {
	c := openTest(t)
	for i := range 5 {
		os.WriteFile(filepath.Join(c.Dir, strings.Repeat("0", 63)+string(rune('a'+i))+".json"), []byte("not json"), 0o600)
	}
	_, errs := c.Find(strings.Repeat("ab", 32), "")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "5 files in the proof cache") || strings.Contains(errs[0].Error(), "\n") {
		t.Fatalf("errs = %v", errs)
	}
	os.WriteFile(filepath.Join(c.Dir, "x.json"), []byte("x"), 0o600)
	for i := range 5 {
		os.Remove(filepath.Join(c.Dir, strings.Repeat("0", 63)+string(rune('a'+i))+".json"))
	}
	if _, errs := c.Find(strings.Repeat("ab", 32), ""); len(errs) != 1 || !strings.Contains(errs[0].Error(), "x.json") {
		t.Fatalf("one refused file: %v", errs)
	}
}

// TestCacheNotMadeInOthersFolder: a cache whose parent does not exist yet
// is not made inside another user's folder (XDG_CACHE_HOME pointing into
// it); inside a shared sticky folder of root's, it is.
func TestCacheNotMadeInOthersFolder(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another uid needs root")
	}
	theirs := filepath.Join(t.TempDir(), "theirs")
	os.Mkdir(theirs, 0o755)
	os.Chown(theirs, attacker, attacker)
	if c, err := OpenCache(filepath.Join(theirs, "cache", "sectax", "proofs")); err == nil {
		c.Close()
		t.Fatal("opened")
	} else if !strings.Contains(err.Error(), "would be made inside "+theirs) {
		t.Errorf("err = %v", err)
	}
	if ents, _ := os.ReadDir(theirs); len(ents) != 0 {
		t.Fatalf("made inside another user's folder: %v", ents)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o755)
	os.Chmod(shared, os.ModeSticky|0o777)
	c, err := OpenCache(filepath.Join(shared, "cache", "sectax", "proofs"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
