package proof

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

const attacker = 65534

func testKey(cmdline string) Key {
	return Key{SHA256: strings.Repeat("ab", 32), CPU: "Cascadelake-Server", Accel: "tcg", SMP: 1, Cmdline: cmdline}
}

func testEntry(cmdline string) *Entry {
	return &Entry{Key: testKey(cmdline), Release: "6.1.0-57-amd64", ToInitS: 7.5,
		Snapshot: []byte(`{"kernel":{"release":"6.1.0-57-amd64"},"cmdline":{"raw":"console=ttyS0 panic=-1 no_timer_check"}}`)}
}

func openTest(t *testing.T) *Cache {
	t.Helper()
	c, err := OpenCache(filepath.Join(t.TempDir(), "sectax", "proofs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCacheRoundTrip: a stored entry is loaded back under its key, its
// file is 0600 in a 0700 folder, and another key is a miss.
func TestCacheRoundTrip(t *testing.T) {
	c := openTest(t)
	if _, err := c.Load(testKey("")); !errors.Is(err, ErrMiss) {
		t.Fatalf("empty cache: %v", err)
	}
	if err := c.Store(testEntry("")); err != nil {
		t.Fatal(err)
	}
	e, err := c.Load(testKey(""))
	if err != nil || e.Release != "6.1.0-57-amd64" {
		t.Fatalf("load: %+v %v", e, err)
	}
	if _, err := c.Load(testKey("mitigations=off")); !errors.Is(err, ErrMiss) {
		t.Errorf("another command line: %v, want a miss", err)
	}
	fi, _ := os.Stat(c.Dir)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", fi.Mode())
	}
	fi, _ = os.Stat(filepath.Join(c.Dir, testKey("").name()))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", fi.Mode())
	}
}

// TestCacheKeyMismatch: a file holding another key's proof (copied under
// this key's name) is a miss: the proof boots again.
func TestCacheKeyMismatch(t *testing.T) {
	c := openTest(t)
	e := testEntry("mitigations=off")
	if err := c.Store(e); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(c.Dir, e.Key.name()))
	if err := os.WriteFile(filepath.Join(c.Dir, testKey("").name()), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(testKey("")); !errors.Is(err, ErrMiss) {
		t.Fatalf("another key's proof under this name: %v, want a miss", err)
	}
}

// TestCacheRefuses: a link, a FIFO, a file of another user, a file
// others may write and a corrupted file are each refused in one line
// naming the file, without blocking.
func TestCacheRefuses(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another uid needs root")
	}
	k := testKey("")
	cases := map[string]struct {
		plant func(t *testing.T, p string)
		want  string
	}{
		"link": {func(t *testing.T, p string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			os.WriteFile(target, []byte("{}"), 0o600)
			os.Symlink(target, p)
		}, "refused"},
		"fifo":  {func(t *testing.T, p string) { unix.Mkfifo(p, 0o600) }, "not a regular file"},
		"owner": {func(t *testing.T, p string) { plantAs(t, p, attacker) }, "owned by uid 65534"},
		"mode": {func(t *testing.T, p string) {
			writeEntry(t, p)
			os.Chmod(p, 0o666)
		}, "lets others write"},
		"corrupt": {func(t *testing.T, p string) {
			os.WriteFile(p, []byte("{\"schema\":\"sectax.proof/v1\",\n\"key\":{\"kernel_sha256\":"), 0o600)
		}, "does not parse"},
		"schema": {func(t *testing.T, p string) { os.WriteFile(p, []byte("{\"schema\":\"x\x1b]0;pwned\x07\"}"), 0o600) }, "schema"},
		"huge":   {func(t *testing.T, p string) { os.WriteFile(p, make([]byte, MaxEntry+10), 0o600) }, "more than a proof holds"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := openTest(t)
			p := filepath.Join(c.Dir, k.name())
			tc.plant(t, p)
			_, err := c.Load(k)
			if err == nil || errors.Is(err, ErrMiss) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) ||
				strings.ContainsAny(err.Error(), "\n\x1b\x07") {
				t.Fatalf("err = %q, want one line naming %s with %q", err, p, tc.want)
			}
		})
	}
}

// TestCacheFolderRefused: a folder of another user, one others may
// enter, or a link in its place is refused.
func TestCacheFolderRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another uid needs root")
	}
	base := t.TempDir()
	other := filepath.Join(base, "other")
	os.Mkdir(other, 0o700)
	os.Chown(other, attacker, attacker)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o755)
	link := filepath.Join(base, "link")
	os.Symlink(t.TempDir(), link)
	for _, dir := range []string{other, open, link} {
		if c, err := OpenCache(dir); err == nil {
			c.Close()
			t.Errorf("%s: opened", dir)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %q", dir, err)
		}
	}
}

func writeEntry(t *testing.T, p string) {
	t.Helper()
	c, err := OpenCache(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Store(testEntry("")); err != nil {
		t.Fatal(err)
	}
}

// plantAs writes a valid entry at p as uid (the attacker), through a
// child process with that uid, into a folder opened to it for the
// purpose.
func plantAs(t *testing.T, p string, uid int) {
	t.Helper()
	dir := filepath.Dir(p)
	// The attacker reaches the folder (its parents are the test's).
	for d := filepath.Dir(dir); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	os.Chmod(dir, 0o777)
	defer os.Chmod(dir, 0o700)
	data := `{"schema":"sectax.proof/v1","key":{"kernel_sha256":"` + strings.Repeat("ab", 32) + `","cpu":"Cascadelake-Server","accel":"tcg","smp":1,"cmdline":""},"release":"6.1.0-57-amd64","snapshot":{}}`
	attr := &os.ProcAttr{Files: []*os.File{nil, os.Stdout, os.Stderr}, Sys: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}}
	proc, err := os.StartProcess("/bin/sh", []string{"sh", "-c", `umask 077; printf '%s' "$1" > "$2"`, "sh", data, p}, attr)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := proc.Wait(); err != nil || !st.Success() {
		t.Fatalf("attacker's write: %v %v", st, err)
	}
}

// TestDefaultDir: root's cache is /var/cache, a user's under XDG or HOME,
// never a relative path.
func TestDefaultDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		uid  int
		env  map[string]string
		want string
	}{
		{0, map[string]string{"HOME": "/root"}, "/var/cache/sectax/proofs"},
		{1000, map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/x"}, "/x/sectax/proofs"},
		{1000, map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "rel"}, "/home/u/.cache/sectax/proofs"},
		{1000, map[string]string{}, ""},
	} {
		got, err := DefaultDir(tc.uid, env(tc.env))
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("uid %d %v: %q %v", tc.uid, tc.env, got, err)
		}
	}
}

// FuzzParse: a stored proof is untrusted text: Parse never panics, and
// what it accepts has a sha256 key and a bounded size.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"schema":"sectax.proof/v1","key":{"kernel_sha256":"` + strings.Repeat("ab", 32) + `","cpu":"x","accel":"tcg","smp":1,"cmdline":""},"release":"r","snapshot":{}}`))
	f.Add([]byte(`{"schema":"sectax.proof/v1"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("two-line error %q", err)
			}
			return
		}
		if len(e.Key.SHA256) != 64 || len(e.Snapshot) > MaxEntry {
			t.Errorf("accepted %+v", e.Key)
		}
	})
}
