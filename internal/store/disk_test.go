package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/run"
)

// recordChild is the helper process of the tests below (the test binary
// with SECTAX_STORE_TEST_RECORD=DB): it records a run of
// SECTAX_STORE_TEST_REPS repetitions into the store at DB as sectax run
// does, or with SECTAX_STORE_TEST_OPEN=1 only opens it (creating it), and
// says on stderr what the store said; its exit status is 1 when the run
// was not stored or the store did not open.
func recordChild(db string) int {
	out := notesDo(func(msg string) { fmt.Fprintln(os.Stderr, msg) })
	d, err := refOf(db).Open(context.Background(), Options{Create: true, Out: out})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer d.Close()
	if os.Getenv("SECTAX_STORE_TEST_OPEN") == "1" {
		return 0
	}
	reps, _ := strconv.Atoi(os.Getenv("SECTAX_STORE_TEST_REPS"))
	rec := NewRecorder(context.Background(), d, out)
	r := measureInto(nil, rec, "20261130T090000-abcdef", reps, nil)
	if err := rec.Saved(r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// recordIn runs recordChild on the store at db through sh -c script
// (which execs "$0" "$@"), with env added; it returns stderr and the exit
// status.
func recordIn(t *testing.T, script, db string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script, os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "SECTAX_STORE_TEST_RECORD="+db), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return stderr.String(), cmd.ProcessState.ExitCode()
}

// checkSpilled finds the spill file named in errs, in dir, and imports it
// into the store at db, where it replaces the copy cut short.
func checkSpilled(t *testing.T, errs, dir, db string, reps int) {
	t.Helper()
	m := unsavedRE.FindStringSubmatch(errs)
	if m == nil || filepath.Dir(m[1]) != dir {
		t.Fatalf("no spill file in %s named in:\n%s", dir, errs)
	}
	var want run.Run
	b, err := os.ReadFile(m[1])
	if err != nil || json.Unmarshal(b, &want) != nil || len(want.Results[0].Metrics[0].Samples) != reps {
		t.Fatalf("the spill file: %v, %d samples; want %d", err, len(want.Results[0].Metrics[0].Samples), reps)
	}
	checkSpillImports(t, db, m[1], &want)
}

// TestRecordSpillsWhenFileSizeLimited: the disk "fills" mid-run: a child
// records under a file size limit of 128 KiB with SIGXFSZ ignored, so that
// writes to the growing database fail with EFBIG. The error names the
// limit and the fix, and the spill file imports back intact.
func TestRecordSpillsWhenFileSizeLimited(t *testing.T) {
	d, db := openTemp(t)
	d.Close()
	errs, code := recordIn(t, `trap '' XFSZ; ulimit -f 256 && exec "$0" "$@"`, db, "SECTAX_STORE_TEST_REPS=60")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errs)
	}
	if !strings.Contains(errs, "the file size limit of this process (ulimit -f) is 131072 bytes: raise it (ulimit -f unlimited) or pass --db") ||
		strings.Contains(errs, "disk I/O error") {
		t.Errorf("the cause is not named:\n%s", errs)
	}
	checkSpilled(t, errs, filepath.Dir(db), db, 60)
}

// TestRecordSpillsOnFullFilesystem: the store lives on a tiny tmpfs that
// fills up mid-run. The error says the filesystem is full, and the run is
// written to the temporary directory, since beside the store there is no
// room either.
func TestRecordSpillsOnFullFilesystem(t *testing.T) {
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=256k"); err != nil {
		if os.Getenv("CI") == "true" && !errors.Is(err, unix.EPERM) {
			t.Fatalf("mount tmpfs: %v", err)
		}
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	db := filepath.Join(mnt, "sectax.db")
	d, err := refOf(db).Open(context.Background(), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	// Fill the filesystem but for 64 KiB: room for the -shm and the first
	// commits of the run, not for all of it.
	var st unix.Statfs_t
	if err := unix.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	if err := os.WriteFile(filepath.Join(mnt, "filler"), make([]byte, free-64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	errs, code := recordIn(t, `exec "$0" "$@"`, db, "SECTAX_STORE_TEST_REPS=200", "TMPDIR="+tmp)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errs)
	}
	if !strings.Contains(errs, "cannot write store "+db+": the filesystem of "+mnt+" is full (") ||
		!strings.Contains(errs, "free some space there or pass --db on another filesystem") || strings.Contains(errs, "(4874)") {
		t.Errorf("the cause is not named:\n%s", errs)
	}
	os.Remove(filepath.Join(mnt, "filler"))
	checkSpilled(t, errs, tmp, db, 200)
}

// TestStoreDirNotAccessible: SQLite said "unable to open database file
// (14)". As a user who may not enter or write the directory, the error
// names the directory, the uid and the fix. Root can do anything, so as
// root the helper process runs as nobody.
func TestStoreDirNotAccessible(t *testing.T) {
	base, err := os.MkdirTemp("/tmp", "sectax-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(base, "closed"), 0o755); os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	closed := filepath.Join(base, "closed")
	readonly := filepath.Join(base, "readonly")
	os.Mkdir(closed, 0o700)
	os.Mkdir(readonly, 0o555)
	exe := os.Args[0]
	var cred *syscall.SysProcAttr
	uid := os.Getuid()
	if uid == 0 {
		uid = 65534
		// A copy of the test binary that nobody may run.
		exe = filepath.Join(base, "store.test")
		b, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, b, 0o755); err != nil {
			t.Fatal(err)
		}
		cred = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else {
		os.Chmod(closed, 0o000)
	}
	for _, c := range []struct{ db, want string }{
		{filepath.Join(closed, "x", "sectax.db"), "cannot open store " + closed + "/x/sectax.db: directory " + closed + " is not accessible by uid " + strconv.Itoa(uid)},
		{filepath.Join(readonly, "sectax.db"), "cannot open store " + readonly + "/sectax.db: directory " + readonly + " is not writable by uid " + strconv.Itoa(uid) + ": pass --db or fix permissions"},
	} {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Dir = base
		cmd.Env = append(os.Environ(), "SECTAX_STORE_TEST_RECORD="+c.db, "SECTAX_STORE_TEST_OPEN=1")
		cmd.SysProcAttr = cred
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), c.want) || strings.Contains(stderr.String(), "(14)") {
			t.Errorf("%s: %v, %q; want exit 1 and %q", c.db, err, stderr.String(), c.want)
		}
	}
}

// TestUserVersionNegative: every command panicked on a database whose
// user_version is negative; opening it is one error naming the file and
// the fix, and the file is left as it was.
func TestUserVersionNegative(t *testing.T) {
	d, path := openTemp(t)
	d.Close()
	o, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Exec(`PRAGMA user_version = -7`); err != nil {
		t.Fatal(err)
	}
	o.Close()
	for _, opt := range []Options{{}, {Create: true}, {ReadOnly: true}} {
		_, err := refOf(path).Open(context.Background(), opt)
		want := path + " is not a sectax database or is corrupt (schema version -7, application id 0x53544158); it was left untouched: restore a backup or choose another file with --db"
		if err == nil || err.Error() != want {
			t.Errorf("%+v: %v", opt, err)
		}
	}
}
