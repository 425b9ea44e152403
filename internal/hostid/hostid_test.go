package hostid

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// attacker runs sh -c script as uid 65534 (nobody), another user beside
// sectax.
func attacker(t *testing.T, script string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("attacker: %v: %s", err, e.String())
	}
}

// openTemp is a temporary folder another user may enter.
func openTemp(t *testing.T) string {
	d := t.TempDir()
	os.Chmod(filepath.Dir(d), 0o755)
	os.Chmod(d, 0o755)
	return d
}

func TestParseMachineID(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"0123456789abcdef0123456789ABCDEF\n", true},
		{"0123456789abcdef0123456789abcdef", true},
		{"uninitialized\n", false},
		{"00000000000000000000000000000000\n", false},
		{"0123456789abcdef0123456789abcdeg\n", false},
		{"0123456789abcdef0123456789abcdef\n\n", false},
		{"", false},
	} {
		id, ok := ParseMachineID(c.in)
		if ok != c.ok || (ok && id != strings.ToLower(strings.TrimSpace(c.in))) {
			t.Errorf("ParseMachineID(%q) = %q, %v", c.in, id, ok)
		}
	}
}

func FuzzParseMachineID(f *testing.F) {
	f.Add("0123456789abcdef0123456789abcdef\n")
	f.Add("uninitialized\n")
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := ParseMachineID(s)
		if ok && (len(id) != 32 || strings.ToLower(id) != id) {
			t.Fatalf("%q gave %q", s, id)
		}
	})
}

// TestMachineIDKey: the key comes from the machine id (never stored),
// does not depend on the hostname, and changes with the machine id.
func TestMachineIDKey(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/machine-id"), []byte("0123456789abcdef0123456789abcdef\n"), 0o444)
	os.WriteFile(filepath.Join(root, "etc/hostname"), []byte("a\n"), 0o644)
	k, err := Of(root)
	if err != nil || k.Zero() || k.Source != "machine-id" {
		t.Fatalf("%+v %v", k, err)
	}
	m := k.Mark("20260101T000000Z-aaaa")
	if len(m) != MarkLen || strings.Contains(m, "0123456789abcdef") {
		t.Fatalf("mark %q", m)
	}
	if !k.Recognises("20260101T000000Z-aaaa", m) || k.Recognises("20260101T000000Z-aaab", m) || k.Recognises("20260101T000000Z-aaaa", strings.ToUpper(m)) {
		t.Fatal("a mark fits its run id only")
	}
	os.WriteFile(filepath.Join(root, "etc/hostname"), []byte("b\n"), 0o644)
	if k2, _ := Of(root); !k2.Recognises("20260101T000000Z-aaaa", m) {
		t.Fatal("a hostname change changed the key")
	}
	if _, err := os.Stat(filepath.Join(root, SecretFile)); err == nil {
		t.Fatal("a secret was made beside a machine id")
	}
	os.WriteFile(filepath.Join(root, "etc/machine-id"), []byte("fedcba9876543210fedcba9876543210\n"), 0o444)
	if k3, _ := Of(root); k3.Recognises("20260101T000000Z-aaaa", m) {
		t.Fatal("a new machine id kept the old key")
	}
	var zero Key
	if zero.Mark("x") != "" || zero.Recognises("x", "") {
		t.Fatal("the zero key marks or recognises")
	}
}

// TestSecretKey: without a machine id, a secret is made once (0600 in a
// 0700 folder), kept, and Known never makes one.
func TestSecretKey(t *testing.T) {
	root := t.TempDir()
	if k, err := Known(root); err != nil || !k.Zero() {
		t.Fatalf("Known on a bare root: %+v %v", k, err)
	}
	if _, err := os.Stat(filepath.Join(root, SecretFile)); err == nil {
		t.Fatal("Known made a secret")
	}
	k, err := Of(root)
	if err != nil || k.Zero() {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(root, SecretFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret %v %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Join(root, "var/lib/sectax")); di.Mode().Perm() != 0o700 {
		t.Fatalf("folder %v", di.Mode())
	}
	m := k.Mark("r1")
	k2, err := Known(root)
	if err != nil || !k2.Recognises("r1", m) {
		t.Fatalf("the secret was not kept: %v", err)
	}
	// An empty machine id (a container's) is no machine id.
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/machine-id"), nil, 0o444)
	if k3, _ := Of(root); !k3.Recognises("r1", m) {
		t.Fatal("an empty machine id replaced the secret")
	}
}

// TestSecretPlantedByAnotherUser: another user who can write the folder
// the secret goes in, or plants a key or a link there, never gives root a
// key it knows: the secret is refused, and nothing is written through the
// link.
func TestSecretPlantedByAnotherUser(t *testing.T) {
	for _, c := range []struct{ name, script string }{
		{"own file", "printf '%064d\\n' 0 > host.key && chmod 600 host.key"},
		{"link", "ln -s /tmp/stolen-host-key host.key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := openTemp(t)
			dir := filepath.Join(root, "var/lib/sectax")
			os.MkdirAll(filepath.Dir(dir), 0o755)
			os.Mkdir(dir, 0o700)
			os.Chown(dir, 65534, 65534)
			attacker(t, "cd "+dir+" && "+c.script)
			k, err := Of(root)
			if err == nil || !k.Zero() {
				t.Fatalf("a folder another user owns gave a key: %+v %v", k, err)
			}
			if _, err := os.Lstat("/tmp/stolen-host-key"); err == nil {
				t.Fatal("written through the link")
			}
		})
	}
	// Root's own folder with a key the attacker could not have written
	// but a file of the attacker's put there by a mistake: refused too.
	root := t.TempDir()
	if _, err := Of(root); err != nil {
		t.Fatal(err)
	}
	os.Chown(filepath.Join(root, SecretFile), 65534, 65534)
	if k, err := Known(root); err == nil || !k.Zero() || !strings.Contains(err.Error(), "not a host key sectax wrote") {
		t.Fatalf("another user's key file: %+v %v", k, err)
	}
}

// TestUserSecret: another user on the running machine keeps its secret
// below XDG_STATE_HOME, made 0700/0600 (run as that user).
func TestUserSecret(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	top := openTemp(t)
	state := filepath.Join(top, "state")
	os.Mkdir(state, 0o700)
	os.Chown(state, 65534, 65534)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(top, "hostid.test")
	os.WriteFile(exe, b, 0o755)
	cmd := exec.Command(exe, "-test.run", "^TestUserSecretChild$")
	cmd.Env = []string{"XDG_STATE_HOME=" + state, "HOSTID_CHILD=1", "HOME=/nonexistent"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("%v: %s", err, out)
	}
	fi, err := os.Stat(filepath.Join(state, "sectax/host.key"))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Sys().(*syscall.Stat_t).Uid != 65534 {
		t.Fatalf("%v %v", fi, err)
	}
}

func TestUserSecretChild(t *testing.T) {
	if os.Getenv("HOSTID_CHILD") == "" {
		t.Skip("run by TestUserSecret")
	}
	// The running machine's /etc/machine-id may exist: ask for the
	// secret's place directly.
	base, rel, err := secretPlace("/")
	if err != nil || base != os.Getenv("XDG_STATE_HOME") || rel != "sectax/host.key" {
		t.Fatalf("%q %q %v", base, rel, err)
	}
	k, err := fromSecret(base, rel, true)
	if err != nil || k.Zero() {
		t.Fatal(err)
	}
}
