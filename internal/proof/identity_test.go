package proof

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileSHA256: a program's identity is the sha256 of its bytes, kept
// in the cache under its path, inode, size and times: a rewrite in place
// (same size, the modification time put back) changes the change time,
// so the new bytes are hashed, never answered from the memo; a planted
// memo (a link) is not believed.
func TestFileSHA256(t *testing.T) {
	c := openTest(t)
	p := filepath.Join(t.TempDir(), "qemu")
	os.WriteFile(p, []byte("QEMU A"), 0o755)
	sum := func(b string) string { h := sha256.Sum256([]byte(b)); return hex.EncodeToString(h[:]) }
	for i := 0; i < 2; i++ { // hashed, then from the memo
		if got, err := FileSHA256(c, p, true); err != nil || got != sum("QEMU A") {
			t.Fatalf("round %d: %s %v", i, got, err)
		}
	}
	fi, _ := os.Stat(p)
	os.WriteFile(p, []byte("QEMU B"), 0o755)
	os.Chtimes(p, time.Now(), fi.ModTime())
	if got, _ := FileSHA256(c, p, true); got != sum("QEMU B") {
		t.Errorf("rewritten in place: %s, want the new bytes' hash", got)
	}
	if _, err := FileSHA256(c, "/nonexistent/qemu-9.9", true); err == nil {
		t.Error("a missing QEMU has an identity")
	}
	// A memo planted as a link to a file holding another hash (this
	// process's own memo forgotten: only the cache's is left to believe).
	hashed.Clear()
	names, _ := filepath.Glob(filepath.Join(c.Dir, "id-*"))
	lie := filepath.Join(t.TempDir(), "lie")
	os.WriteFile(lie, []byte(sum("QEMU A")), 0o600)
	for _, n := range names {
		os.Remove(n)
		os.Symlink(lie, n)
	}
	if got, _ := FileSHA256(c, p, false); got != sum("QEMU B") {
		t.Errorf("a linked memo was believed: %s", got)
	}
}

// TestStoreRefusesWhatLoadRefuses: the writer holds the reader's bounds: a
// snapshot over MaxEntry (a guest's 7 MiB CPU model name) and a CPU name
// over its bound are not stored, so no later call fails on them.
func TestStoreRefusesWhatLoadRefuses(t *testing.T) {
	c := openTest(t)
	big := testEntry("")
	big.Snapshot = []byte(`{"cpu":{"model_name":"` + strings.Repeat("x", 7<<20) + `"}}`)
	long := testEntry("mitigations=off")
	long.Key.CPU = strings.Repeat("c", 300)
	for name, e := range map[string]*Entry{"big": big, "long cpu": long} {
		if err := c.Store(e); err == nil || !strings.Contains(err.Error(), "not stored") {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := c.Load(e.Key); !errors.Is(err, ErrMiss) {
			t.Errorf("%s: load after a refused store: %v", name, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(c.Dir, "*")); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}
