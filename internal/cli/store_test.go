package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/testutil"
)

// sectaxRaw runs the CLI in-process with exactly the environment it is
// given (no SECTAX_DB default, unlike sectax()).
func sectaxRaw(deps Deps, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := mainWith(context.Background(), args, &out, &errb, deps)
	return out.String(), errb.String(), code
}

// TestDBPathEmptyOrUnresolvable: the reproducers. An empty --db used to
// print "stored run … in " and lose the run (SQLite's temporary database);
// with HOME unset the store landed in ./sectax.db. Both are usage errors
// now, and a relative --db is stored and reported as an absolute path.
func TestDBPathEmptyOrUnresolvable(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("SECTAX_DB", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", filepath.Join(dir, "home"))
	deps := fixedDeps(fakeRegistry())
	args := []string{"run", "--runs", "1"}

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
	want := "sectax: stored run 20261130T090000-abcdef in " + filepath.Join(dir, "rel", "s.db") + "\n"
	if code != 0 || !strings.Contains(testutil.Unwrap(errs), want) {
		t.Errorf("relative --db: exit %d, %q; want the line %q", code, errs, want)
	}
}

// writeDoc writes text to a file in dir and returns its path.
func writeDoc(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hostile edits the document of testdata/run.json.
func hostile(t *testing.T, edit func(doc map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile("testdata/run.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, _ := json.Marshal(doc)
	return string(out)
}

// TestImportHostile: a document the store refuses (internal/store's
// TestImportHostile holds every case) is a usage error, exit 2, in one
// line naming the field, whether the file or the store refuses it, and
// 'compare on off' is unchanged.
func TestImportHostile(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, errs := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"id is a label", func(d map[string]any) { d["id"] = "on" }, `id: "on" is already the label of 2 stored run(s)`},
		{"newline id", func(d map[string]any) { d["id"] = "x\ny" }, `id: "x\ny" holds the control character U+000A`},
	} {
		file := writeDoc(t, e.dir, "hostile.json", hostile(t, c.edit))
		code, out, errs := e.run("import", file)
		if code != ExitUsage || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %.300q; want exit 2 and one line with %q", c.name, code, out, errs, c.want)
		}
	}
	_, out, _ := e.run("compare", "on", "off")
	if !strings.Contains(out, "A  2 runs") {
		t.Errorf("compare on off changed after refused imports:\n%s", out)
	}
}

// TestListEmptyStore: 'sectax list' on a store that holds no runs said
// nothing at all.
func TestListEmptyStore(t *testing.T) {
	e := newCLIEnv(t)
	e.run("import", "testdata/run.json")
	e.run("rm", "20261130T090000-abcdef")
	code, out, errs := e.run("list")
	if code != 0 || out != "" || testutil.Unwrap(errs) != "sectax: no runs stored in $TMP/data/sectax.db; run `sectax run --label on` first\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestListShowTruncate: a database written before imports were checked
// may hold a 1 MiB label and huge fields; list and show cut them short.
func TestListShowTruncate(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, errs := e.run("import", "testdata/run.json"); code != 0 {
		t.Fatal(errs)
	}
	db, err := sql.Open("sqlite", e.db)
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("é", 1<<20)
	if _, err := db.Exec(`UPDATE runs SET label=?, suite=?, env=json_set(env, '$.hostname', ?)`, huge, huge, huge); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE metrics SET unit=?`, huge); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{{"list"}, {"show", "20261130T090000-abcdef"}} {
		code, out, errs := e.run(args...)
		if code != 0 || len(out) > 8<<10 || !strings.Contains(out, "éé…") {
			t.Errorf("%v: exit %d, %d bytes of output (%q)", args, code, len(out), errs)
		}
	}
}

// TestUserVersionNegativeCLI: every command panicked on a database whose
// user_version is negative; it is exit 1 and the store's one line
// (internal/store's TestUserVersionNegative).
func TestUserVersionNegativeCLI(t *testing.T) {
	e := newCLIEnv(t)
	e.run("import", "testdata/run.json")
	db, err := sql.Open("sqlite", e.db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = -7`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{{"list"}} {
		code, _, errs := e.run(args...)
		if code != ExitError || errs != "sectax: $TMP/data/sectax.db is not a sectax database or is corrupt (schema version -7, application id 0x53544158); it was left untouched: restore a backup or choose another file with --db\n" {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

// TestCompareEmptyRef: 'compare "" on' said "the database holds no runs".
func TestCompareEmptyRef(t *testing.T) {
	e := newCLIEnv(t)
	e.run("import", "testdata/runs.json")
	for _, args := range [][]string{{"compare", "", "on"}, {"compare", "on", ""}, {"show", ""}, {"rm", ""}, {"export", ""}} {
		code, _, errs := e.run(args...)
		if code != ExitUsage || !strings.Contains(errs, "an empty run reference: name a run id, a label or baseline:NAME") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}

// TestRunLabelChecked: the label a run is stored under obeys the rules
// import enforces: no control characters, no baseline: prefix, not the id
// of a stored run.
func TestRunLabelChecked(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "sectax.db")
	t.Setenv("SECTAX_DB", dbPath)
	deps := fixedDeps(fakeRegistry())
	if _, errs, code := sectax(t, deps, "import", "testdata/runs.json"); code != 0 {
		t.Fatal(errs)
	}
	for label, want := range map[string]string{
		"on\x1b[2J":            `--label: "on\x1b[2J" holds the control character U+001B: choose another label`,
		"baseline:mine":        `--label: "baseline:mine" starts with "baseline:"`,
		"20261130T080000-off1": "--label 20261130T080000-off1 is the id of stored run 20261130T080000-off1",
	} {
		out, errs, code := sectax(t, deps, "run", "--runs", "1", "--label", label)
		if code != ExitUsage || out != "" || !strings.Contains(errs, want) {
			t.Errorf("--label %q: exit %d, %q", label, code, errs)
		}
	}
}

// TestDBReferenceRefused: a --db or SECTAX_DB that is neither a file path
// nor a postgres:// URL used to become an SQLite path: folders and a file
// named after the password were made and the path printed. Every command
// refuses it, exit 2, in one line that does not echo it, and makes
// nothing (internal/store's TestParseRefRefused holds every form).
func TestDBReferenceRefused(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	deps := fixedDeps(fakeRegistry())
	const pw = "Pw0rdX"
	refs := []string{"host=db user=sectax password=" + pw + " dbname=sectax"}
	cmds := [][]string{{"list"}, {"show", "x"}, {"import", "testdata/run.json"}, {"export", "x"}, {"rm", "x"},
		{"compare", "a", "b"}, {"fleet"}, {"push"}, {"run", "--runs", "1"}, {"export", "--format", "prometheus"}}
	for _, ref := range refs {
		for _, cmd := range cmds {
			for _, viaEnv := range []bool{false, true} {
				args := append([]string{"--db", ref}, cmd...)
				if viaEnv {
					t.Setenv("SECTAX_DB", ref)
					args = cmd
				} else {
					t.Setenv("SECTAX_DB", "")
				}
				out, errs, code := sectaxRaw(deps, args...)
				if code != ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "neither a file path nor a postgres:// URL") {
					t.Errorf("%q %v (env %v): exit %d, stderr %q; want one usage line", ref, cmd, viaEnv, code, errs)
				}
				if strings.Contains(out+errs, pw) {
					t.Errorf("%q %v: the password is printed: %q %q", ref, cmd, out, errs)
				}
			}
		}
	}
	t.Setenv("SECTAX_DB", refs[0])
	if out, errs, _ := sectaxRaw(deps, "list", "--help"); strings.Contains(out+errs, pw) {
		t.Errorf("--help shows the password of SECTAX_DB: %s", out)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		t.Errorf("a refused reference made %s in the working folder", e.Name())
	}
	if _, err := os.Lstat(filepath.Join(home, ".local")); err == nil {
		t.Errorf("a refused reference made the default store's folder")
	}
}

// TestImportNonRegularFiles: import of a FIFO used to block for ever,
// deaf to Ctrl-C; it is refused at once, exit 2, in one line naming what
// it is (internal/store's TestReadFilesNotRegular: a device, a folder),
// and a cancelled import (Ctrl-C) stops with status 130 and stores
// nothing.
func TestImportNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "sectax.db")
	for _, c := range []struct{ file, want string }{{fifo, "it is a FIFO"}} {
		done := make(chan struct{})
		var errs string
		var code int
		go func() {
			defer close(done)
			_, errs, code = sectaxRaw(Deps{}, "--db", db, "import", c.file)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("import %s blocks", c.file)
		}
		if code != ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("import %s: exit %d, %q; want one line with %q", c.file, code, errs, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	if code := mainWith(ctx, []string{"--db", db, "import", "testdata/runs.json"}, &out, &errb, Deps{}); code != ExitInterrupted {
		t.Errorf("a cancelled import: exit %d, %q", code, errb.String())
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a refused or cancelled import made the store (%v)", err)
	}
}
