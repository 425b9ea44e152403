package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sectax/sectax/internal/exit"
)

// The attacker of these tests is another user (uid 65534) beside root's
// store: in a shared, world-writable folder, or on the same machine as
// root's PostgreSQL measurer.
const attacker = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the attacker is another uid")
	}
}

// sharedDir is a folder anyone may write (a team folder), sticky as /tmp.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// asAttacker runs a command as the attacker and fails the test if it fails.
func asAttacker(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: attacker, Gid: attacker}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v as uid %d: %v %s", args, attacker, err, out)
	}
}

// TestLockLinkNotFollowed: a symbolic link another user planted at the
// lock's name is refused in one line naming it and the fix; the file it
// points to is neither truncated nor written.
func TestLockLinkNotFollowed(t *testing.T) {
	needRoot(t)
	dir := sharedDir(t)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("root's data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "s.db")
	asAttacker(t, "ln", "-s", victim, db+".lock")
	_, err := refOf(db).Lock()
	if err == nil || !strings.Contains(err.Error(), "lock "+db+".lock is a symbolic link") || !strings.Contains(err.Error(), "rm "+db+".lock") || exit.Of(err) != exit.Usage {
		t.Fatalf("AcquireRunLock through a planted link: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "root's data\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if pid := refOf(db).MeasuringPID(); pid != 0 {
		t.Fatalf("MeasuringPID through a link = %d", pid)
	}
}

// TestLockFIFONeverBlocks: a FIFO at the lock's name neither hangs the
// lock (refused in one line) nor MeasuringPID, which list and show call
// for a run marked running (no writer ever opens this FIFO: a blocking
// open would hang the test).
func TestLockFIFONeverBlocks(t *testing.T) {
	needRoot(t)
	dir := sharedDir(t)
	db := filepath.Join(dir, "s.db")
	asAttacker(t, "mkfifo", db+".lock")
	if pid := refOf(db).MeasuringPID(); pid != 0 {
		t.Fatalf("MeasuringPID of a FIFO = %d", pid)
	}
	_, err := refOf(db).Lock()
	if err == nil || !strings.Contains(err.Error(), "is a FIFO, not a regular file: remove it (rm "+db+".lock)") {
		t.Fatalf("AcquireRunLock on a FIFO: %v", err)
	}
}

// TestLockOfAnotherUserNotWritten: a regular lock file another user
// planted is locked (an flock writes nothing) but root does not write
// its pid into it, nor truncate it.
func TestLockOfAnotherUserNotWritten(t *testing.T) {
	needRoot(t)
	dir := sharedDir(t)
	db := filepath.Join(dir, "s.db")
	asAttacker(t, "sh", "-c", "echo planted > "+db+".lock")
	release, err := refOf(db).Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := refOf(db).Lock(); !errors.As(err, new(*LockedError)) {
		t.Fatalf("the lock is not held: %v", err)
	}
	release()
	if b, _ := os.ReadFile(db + ".lock"); string(b) != "planted\n" {
		t.Fatalf("root wrote into the attacker's file: %q", b)
	}
}

// TestStoreDanglingLink: a store path that is a link to nothing is
// refused; nothing is created at the link's target.
func TestStoreDanglingLink(t *testing.T) {
	needRoot(t)
	dir := sharedDir(t)
	target := filepath.Join(t.TempDir(), "elsewhere.db")
	db := filepath.Join(dir, "s.db")
	asAttacker(t, "ln", "-s", target, db)
	_, err := refOf(db).Open(context.Background(), Options{Create: true})
	if err == nil || !strings.Contains(err.Error(), "store "+db+" is a symbolic link to "+target+", which does not exist") || exit.Of(err) != exit.Usage {
		t.Fatalf("Open of a dangling link: %v", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was made: %v", err)
	}
	if _, err := refOf(db).Lock(); err == nil {
		t.Fatal("the lock of a dangling store link was taken")
	}
	if _, err := os.Lstat(target + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a lock was made beside the link's target: %v", err)
	}
}

// TestStoreLinkResolved: a link to an existing store is resolved on
// purpose: the store, its lock and SQLite's journal are the target's.
func TestStoreLinkResolved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	target := filepath.Join(dir, "real.db")
	d, err := refOf(target).Open(ctx, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink("real.db", link); err != nil {
		t.Fatal(err)
	}
	d, err = refOf(link).Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Path() != target {
		t.Fatalf("Path() = %s, want the target %s", d.Path(), target)
	}
	if p, err := refOf(link).LockPath(false); err != nil || p != target+".lock" {
		t.Fatalf("LockPath(link) = %s, %v", p, err)
	}
	release, err := refOf(target).Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if pid := refOf(link).MeasuringPID(); pid != os.Getpid() {
		t.Fatalf("the link's lock is not the target's: MeasuringPID = %d", pid)
	}
}

// TestBesideNotRegular: a FIFO or a link at the name of SQLite's journal,
// WAL or shared-memory file is refused before SQLite opens (it would
// block reading a FIFO; a link it would not follow).
func TestBesideNotRegular(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	for _, suf := range []string{"-journal", "-wal", "-shm"} {
		dir := sharedDir(t)
		db := filepath.Join(dir, "s.db")
		d, err := refOf(db).Open(ctx, Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
		asAttacker(t, "mkfifo", db+suf)
		_, err = refOf(db).Open(ctx, Options{})
		if err == nil || !strings.Contains(err.Error(), db+suf+", beside the store, is a FIFO") {
			t.Fatalf("%s: Open: %v", suf, err)
		}
	}
}

// holdLock is the helper process of TestPostgresLockPerUser: it takes the
// lock of the store db, says "held" and keeps it until its stdin closes.
func holdLock(db string) {
	release, err := refOf(db).Lock()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("held")
	_, _ = io.Copy(io.Discard, os.Stdin)
	release()
	os.Exit(0)
}

// TestPostgresLockPerUser: the lock of a PostgreSQL store lives in a
// folder only its user can write (root's /run/sectax, mode 0700): another
// user holding the lock of the same URL does not block root, root's does
// not block that user, and that user can plant nothing in root's folder.
func TestPostgresLockPerUser(t *testing.T) {
	needRoot(t)
	const url = "postgres://sectax@db.example/sectax"
	path, err := refOf(url).LockPath(true)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != "/run/sectax" {
		t.Fatalf("root's PostgreSQL lock is %s", path)
	}
	fi, err := os.Lstat("/run/sectax")
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("/run/sectax: %v %v", fi.Mode(), err)
	}
	cmd := exec.Command("touch", path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: attacker, Gid: attacker}}
	if cmd.Run() == nil {
		t.Fatal("another user could create a file in root's lock folder")
	}

	// The attacker, a copy of this test binary run as uid 65534, holds
	// the lock of the same URL.
	bin := filepath.Join(sharedDir(t), "store.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := sharedDir(t)
	hold := exec.Command(bin)
	hold.Env = []string{"SECTAX_STORE_TEST_HOLD=" + url, "TMPDIR=" + tmp, "PATH=/usr/bin:/bin"}
	hold.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: attacker, Gid: attacker}}
	stdin, err := hold.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := hold.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	hold.Stderr = os.Stderr
	release, err := refOf(url).Lock() // root holds it first
	if err != nil {
		t.Fatal(err)
	}
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	defer hold.Wait()
	defer stdin.Close()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("root's lock blocked another user: %q", line)
	}
	release()
	release, err = refOf(url).Lock() // the attacker's does not block root
	if err != nil {
		t.Fatalf("another user's lock blocked root: %v", err)
	}
	release()
	if pid := refOf(url).MeasuringPID(); pid != 0 {
		t.Fatalf("root sees the other user's measurer: %d", pid)
	}
}
