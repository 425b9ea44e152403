package hostid

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
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

// TestMachineIDIgnored: the key is not derived from /etc/machine-id
// (which every user can read): with one present, the key is still the
// secret, and a mark computed as the old key did (HMAC of the machine id)
// is not recognised.
func TestMachineIDIgnored(t *testing.T) {
	root := t.TempDir()
	id := "0123456789abcdef0123456789abcdef"
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/machine-id"), []byte(id+"\n"), 0o444)
	k, err := Of(root)
	if err != nil || k.Zero() || k.Source != filepath.Join(root, SecretFile) {
		t.Fatalf("%+v %v", k, err)
	}
	m := hmac.New(sha256.New, []byte(id))
	m.Write([]byte("sectax host key v1"))
	old := Key{k: m.Sum(nil)}
	if k.Recognises("r1", old.Mark("r1")) {
		t.Fatal("a mark anyone could compute from the machine id is recognised")
	}
	if !k.Recognises("r1", k.Mark("r1")) || k.Recognises("r2", k.Mark("r1")) || k.Recognises("r1", strings.ToUpper(k.Mark("r1"))) {
		t.Fatal("a mark fits its run id only")
	}
	var zero Key
	if zero.Mark("x") != "" || zero.Recognises("x", "") {
		t.Fatal("the zero key marks or recognises")
	}
}

// TestSecretKey: a secret is made once (0600 in a
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
	// Readable by group or others: refused, and not replaced.
	os.Chmod(filepath.Join(root, SecretFile), 0o640)
	if k, err := Known(root); err == nil || !k.Zero() {
		t.Fatalf("a group-readable key: %+v %v", k, err)
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

// TestNotRootUnmarked: another user than root on the running machine
// gets no key (runs unmarked, said by NotRootError) and makes nothing.
func TestNotRootUnmarked(t *testing.T) {
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
	cmd := exec.Command(exe, "-test.run", "^TestNotRootChild$")
	cmd.Env = []string{"XDG_STATE_HOME=" + state, "HOSTID_CHILD=1", "HOME=" + state}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("%v: %s", err, out)
	}
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Fatalf("a key was made for another user: %v", ents)
	}
}

func TestNotRootChild(t *testing.T) {
	if os.Getenv("HOSTID_CHILD") == "" {
		t.Skip("run by TestNotRootUnmarked")
	}
	for _, f := range []func(string) (Key, error){Of, Known} {
		k, err := f("/")
		var nr *NotRootError
		if !errors.As(err, &nr) || !k.Zero() || k.Mark("r") != "" {
			t.Fatalf("%+v %v", k, err)
		}
	}
}
