package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/workload"
)

// sectaxRaw runs the CLI in-process with exactly the environment it is
// given (no SECTAX_DB default, unlike sectax()).
func sectaxRaw(deps Deps, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := mainWith(context.Background(), args, &out, &errb, deps)
	return out.String(), errb.String(), code
}

// TestDBPathEmptyOrUnresolvable: the reproducers. --db ” used to
// print "stored run … in " and lose the run (SQLite's temporary database);
// with HOME unset the store landed in ./sectax.db. Both are usage errors
// now, and a relative --db is stored and reported as an absolute path.
func TestDBPathEmptyOrUnresolvable(t *testing.T) {
	root, err := filepath.Abs(wslOn)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("SECTAX_DB", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", filepath.Join(dir, "home"))
	deps := fixedDeps(fakeRegistry())
	args := []string{"run", "--root", root, "--runs", "1"}

	_, errs, code := sectaxRaw(deps, append([]string{"--db", ""}, args...)...)
	if code != ExitUsage || !strings.Contains(errs, "--db '' names no file: pass --db PATH, or leave --db out to use "+filepath.Join(dir, "home", ".local", "share", "sectax", "sectax.db")) {
		t.Errorf("--db '': exit %d, %q", code, errs)
	}
	for _, cmd := range [][]string{{"list"}, {"show", "x"}, {"import", "testdata/run.json"}, {"export", "x"}, {"rm", "x"}, {"compare", "a", "b"}} {
		if _, errs, code := sectaxRaw(deps, append([]string{"--db", ""}, cmd...)...); code != ExitUsage || !strings.Contains(errs, "--db '' names no file") {
			t.Errorf("--db '' %v: exit %d, %q", cmd, code, errs)
		}
	}

	t.Setenv("HOME", "")
	_, errs, code = sectaxRaw(deps, args...)
	if code != ExitUsage || !strings.Contains(errs, "SECTAX_DB, XDG_DATA_HOME and HOME are all unset: pass --db PATH or set SECTAX_DB") {
		t.Errorf("no HOME: exit %d, %q", code, errs)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left in the working directory: %v", ents)
	}

	_, errs, code = sectaxRaw(deps, append([]string{"--db", "rel/s.db"}, args...)...)
	want := "stored run 20261130T090000-abcdef in " + filepath.Join(dir, "rel", "s.db") + "\n"
	if code != 0 || !strings.HasSuffix(errs, want) {
		t.Errorf("relative --db: exit %d, %q; want it to end with %q", code, errs, want)
	}
}

// storeFast shortens the busy timeout and backoff for a test.
func storeFast(t *testing.T, busy time.Duration, backoff ...time.Duration) {
	old := storeTuning
	storeTuning.busyTimeout, storeTuning.backoff = busy, backoff
	t.Cleanup(func() { storeTuning = old })
}

// exclusiveLock holds the write lock of the SQLite file at path on a real
// second connection (BEGIN EXCLUSIVE) until release is called.
func exclusiveLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// locker is a scripted workload that, on its third repetition, has
// another process's lock taken on the database (mid-run, as a concurrent
// import or rm would).
type locker struct {
	fake
	onThird func()
}

func (l *locker) Run(ctx context.Context, env workload.Env, p workload.Params) (workload.Sample, error) {
	if l.n == 2 && l.onThird != nil {
		l.onThird()
	}
	return l.fake.Run(ctx, env, p)
}

// createStore makes an empty sectax database at path.
func createStore(t *testing.T, path string) {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

var unsavedRE = regexp.MustCompile(`it is saved in (\S+sectax-unsaved-\S+\.json): recover it with 'sectax import `)

// TestRunSpillsWhenBusy: another writer takes the database's lock in the
// middle of a run and holds it longer than the backoff. The run used to
// abort, print nothing and be stored as failed; now it measures on, says it
// is retrying, prints every result, writes the run beside the store, and
// exits 1; 'sectax import' of that file then replaces the cut-short copy.
func TestRunSpillsWhenBusy(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "sectax.db")
	t.Setenv("SECTAX_DB", dbPath)
	createStore(t, dbPath)
	storeFast(t, 20*time.Millisecond, 30*time.Millisecond, 60*time.Millisecond)
	var release func()
	reg := workload.NewRegistry(&locker{fake: fake{id: "alpha", base: map[string]float64{"usecs_per_op": 1.5}},
		onThird: func() { release = exclusiveLock(t, dbPath) }})
	deps := fixedDeps(reg)
	out, errs, code := sectax(t, deps, "run", "--root", wslOn, "--runs", "6", "--warmup", "0", "--label", "busy")
	if release != nil {
		release()
	}
	if code != ExitError {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errs)
	}
	for _, want := range []string{"alpha", "usecs_per_op", "1.525", "status complete"} {
		if !strings.Contains(out, want) {
			t.Errorf("results not printed (%q missing):\n%s", want, out)
		}
	}
	for _, want := range []string{
		"database " + dbPath + " is locked by another process; trying again in 30ms (attempt 2 of 3)",
		"is locked by another process (waited 150ms)",
		"measuring on, the run will be written to a file at the end",
		"run 20261130T090000-abcdef was not stored in " + dbPath,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	m := unsavedRE.FindStringSubmatch(errs)
	if m == nil || filepath.Dir(m[1]) != dir {
		t.Fatalf("no spill file beside the store named in:\n%s", errs)
	}
	checkSpillImports(t, deps, m[1], "20261130T090000-abcdef", 6)
}

// checkSpillImports imports the spill file and checks that the store then
// holds exactly the document of the file, finished.
func checkSpillImports(t *testing.T, deps Deps, file, id string, samples int) {
	t.Helper()
	spilled, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := sectax(t, deps, "import", file)
	if code != 0 || !strings.Contains(out, "imported 1 run(s)") {
		t.Fatalf("import of the spill file: exit %d\n%s%s", code, out, errs)
	}
	shown, _, _ := sectax(t, deps, "show", id, "--format", "json")
	if shown != string(spilled) {
		t.Errorf("the stored run differs from the spill file:\n%s\n---\n%s", shown, spilled)
	}
	var r run.Run
	if err := json.Unmarshal(spilled, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != run.StatusComplete || len(r.Results[0].Metrics[0].Samples) != samples {
		t.Errorf("spilled run: status %s, %d samples; want complete, %d", r.Status, len(r.Results[0].Metrics[0].Samples), samples)
	}
}

// TestRunWaitsOutBusy: a lock released within the backoff costs a wait
// (said on stderr) and nothing else.
func TestRunWaitsOutBusy(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "sectax.db")
	t.Setenv("SECTAX_DB", dbPath)
	createStore(t, dbPath)
	storeFast(t, 20*time.Millisecond, 100*time.Millisecond, 200*time.Millisecond, 400*time.Millisecond)
	release := exclusiveLock(t, dbPath)
	time.AfterFunc(150*time.Millisecond, release)
	_, errs, code := sectax(t, fixedDeps(fakeRegistry()), "run", "--root", wslOn, "--runs", "2", "--label", "wait")
	if code != 0 || !strings.Contains(errs, "is locked by another process; trying again in 100ms (attempt 2 of 4)") ||
		!strings.Contains(errs, "stored run 20261130T090000-abcdef in "+dbPath) {
		t.Fatalf("exit %d:\n%s", code, errs)
	}
}

// tinyRun is a real run of one workload at a tiny size through the real
// command (the test binary standing in for sectax).
func tinyRun(reps string) []string {
	return []string{"run", "--root", wslOn, "--only", "syscall-basic", "--param", "syscall-basic.loops=1000",
		"--runs", reps, "--warmup", "0", "--seed", "1", "--label", "full"}
}

// TestRunSpillsWhenFileSizeLimited: the disk "fills" mid-run: a child
// sectax runs under a file size limit of 128 KiB with SIGXFSZ ignored, so
// that writes to the growing database fail with EFBIG. The results are
// printed, the error names the limit and the fix, and the spill file
// imports back intact.
func TestRunSpillsWhenFileSizeLimited(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "sectax.db")
	createStore(t, dbPath)
	cmd := exec.Command("sh", append([]string{"-c", `trap '' XFSZ; ulimit -f 256 && exec "$0" "$@"`, os.Args[0]}, tinyRun("40")...)...)
	cmd.Env = append(os.Environ(), "SECTAX_CLI_MAIN=1", "SECTAX_DB="+dbPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitError {
		t.Fatalf("exit %v, want 1; stderr:\n%s", err, stderr.String())
	}
	errs := stderr.String()
	if !strings.Contains(stdout.String(), "syscall-basic") || !strings.Contains(stdout.String(), "40") {
		t.Errorf("results not printed:\n%s", stdout.String())
	}
	if !strings.Contains(errs, "the file size limit of this process (ulimit -f) is 131072 bytes: raise it (ulimit -f unlimited) or pass --db") ||
		strings.Contains(errs, "disk I/O error") {
		t.Errorf("the cause is not named:\n%s", errs)
	}
	m := unsavedRE.FindStringSubmatch(errs)
	if m == nil || filepath.Dir(m[1]) != dir {
		t.Fatalf("no spill file beside the store named in:\n%s", errs)
	}
	t.Setenv("SECTAX_DB", dbPath)
	var id struct {
		ID string `json:"id"`
	}
	b, _ := os.ReadFile(m[1])
	json.Unmarshal(b, &id)
	checkSpillImports(t, fixedDeps(nil), m[1], id.ID, 40)
}

// TestRunSpillsOnFullFilesystem: the store lives on a tiny tmpfs that
// fills up mid-run. The error says the filesystem is full, and the run is
// written to the temporary directory, since beside the store there is no
// room either.
func TestRunSpillsOnFullFilesystem(t *testing.T) {
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=256k"); err != nil {
		if os.Getenv("CI") == "true" && !errors.Is(err, unix.EPERM) {
			t.Fatalf("mount tmpfs: %v", err)
		}
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	dbPath := filepath.Join(mnt, "sectax.db")
	createStore(t, dbPath)
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
	cmd := exec.Command(os.Args[0], tinyRun("60")...)
	cmd.Env = append(os.Environ(), "SECTAX_CLI_MAIN=1", "SECTAX_DB="+dbPath, "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitError {
		t.Fatalf("exit %v, want 1; stderr:\n%s", err, stderr.String())
	}
	errs := stderr.String()
	if !strings.Contains(stdout.String(), "syscall-basic") {
		t.Errorf("results not printed:\n%s", stdout.String())
	}
	if !strings.Contains(errs, "cannot write store "+dbPath+": the filesystem of "+mnt+" is full (") ||
		!strings.Contains(errs, "free some space there or pass --db on another filesystem") || strings.Contains(errs, "(4874)") {
		t.Errorf("the cause is not named:\n%s", errs)
	}
	m := unsavedRE.FindStringSubmatch(errs)
	if m == nil || filepath.Dir(m[1]) != tmp {
		t.Fatalf("no spill file in the temporary directory named in:\n%s", errs)
	}
	os.Remove(filepath.Join(mnt, "filler"))
	t.Setenv("SECTAX_DB", dbPath)
	var id struct {
		ID string `json:"id"`
	}
	b, _ := os.ReadFile(m[1])
	json.Unmarshal(b, &id)
	checkSpillImports(t, fixedDeps(nil), m[1], id.ID, 60)
}
