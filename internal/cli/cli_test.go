package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/testutil"

	"github.com/sectax/sectax/internal/workload"
)

// cliEnv runs sectax in-process with --db in a temporary directory.
type cliEnv struct {
	t   *testing.T
	dir string
	db  string
}

func newCLIEnv(t *testing.T) *cliEnv {
	dir := testutil.FixedLenDir(t) // the goldens wrap around $TMP
	return &cliEnv{t: t, dir: dir, db: filepath.Join(dir, "data", "sectax.db")}
}

// run executes sectax with args (after --db) and returns the exit code,
// stdout and stderr with the temporary directory replaced by $TMP.
func (e *cliEnv) run(args ...string) (int, string, string) {
	e.t.Helper()
	var out, errb bytes.Buffer
	deps := Deps{Registry: workload.Default()}
	code := mainWith(context.Background(), append([]string{"--db", e.db, "--no-color"}, args...), &out, &errb, deps)
	checkTextWidths(e.t, deps, append([]string{"--db", e.db, "--no-color"}, args...), out.String())
	clean := func(s string) string { return strings.ReplaceAll(s, e.dir, "$TMP") }
	return code, clean(out.String()), clean(errb.String())
}

// reportSheet is report's html.css, the style sheet of every page, which
// HTML goldens hold as one line (testutil.PageForGolden).
func reportSheet(t testing.TB) string {
	t.Helper()
	sheet, err := os.ReadFile(filepath.Join("..", "report", "html.css"))
	if err != nil {
		t.Fatal(err)
	}
	return string(sheet)
}

// golden runs args and compares exit code, stdout and stderr with
// testdata/cli/name.golden.
func (e *cliEnv) golden(name string, args ...string) string {
	e.t.Helper()
	code, stdout, stderr := e.run(args...)
	out := stdout
	if strings.HasSuffix(name, "-html") {
		// report tests the charts and the style sheet
		out = string(testutil.PageForGolden(e.t, []byte(stdout), "html.css", reportSheet(e.t)))
	}
	got := "$ sectax " + strings.ReplaceAll(strings.Join(args, " "), e.dir, "$TMP") + "\n" +
		"exit " + strconv.Itoa(code) + "\n--- stdout\n" + out + "--- stderr\n" + stderr
	testutil.Golden(e.t, filepath.Join("testdata", "cli", name+".golden"), []byte(got))
	return stdout
}

// TestStoreWorkflow goes through the stored-run commands in order on one
// database: an empty list, import (twice), list, show, compare in every
// format, export and re-import elsewhere, rm.
func TestStoreWorkflow(t *testing.T) {
	e := newCLIEnv(t)
	e.golden("list-empty", "list")
	if _, err := os.Stat(e.db); err == nil {
		t.Fatal("list created a database")
	}
	e.golden("import", "import", "testdata/runs.json")
	e.golden("import-again", "import", "testdata/runs.json")
	e.golden("list", "list")
	e.golden("list-json", "list", "--format", "json")
	e.golden("show", "show", "20261130T080000")
	e.golden("show-ambiguous-label", "show", "on")
	e.golden("show-unknown", "show", "nope")
	e.golden("compare-text", "compare", "on", "off")
	e.golden("compare-md", "compare", "on", "off", "--format", "md")
	e.golden("compare-json", "compare", "on", "off", "--format", "json")
	e.golden("compare-csv", "compare", "on", "off", "--format", "csv")
	e.golden("compare-benchfmt", "compare", "on", "off", "--format", "benchfmt")
	e.golden("compare-alpha", "compare", "on", "off", "--alpha", "0.001")
	e.golden("compare-vs-baseline", "compare", "20261130T080000-off1", "baseline:study-wsl3-off")
	e.golden("compare-same", "compare", "off", "20261130T08")
	e.golden("compare-bad-alpha", "compare", "on", "off", "--alpha", "2")
	e.golden("compare-margin", "compare", "on", "off", "--margin", "5")
	e.golden("compare-bad-margin", "compare", "on", "off", "--margin", "0")
	e.golden("compare-bad-format", "compare", "on", "off", "--format", "pdf")
	e.golden("compare-unknown-baseline", "compare", "on", "baseline:nope")
	e.golden("compare-ambiguous-prefix", "compare", "2026", "off")

	out := filepath.Join(e.dir, "tax.md")
	e.golden("compare-output-file", "compare", "on", "off", "--format", "md", "-o", out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join("testdata", "cli", "compare-md.golden"))
	if !strings.Contains(string(want), string(got)) || len(got) == 0 {
		t.Error("-o FILE content differs from the stdout output")
	}

	exported := e.golden("export", "export", "off")
	// Re-import the export into a fresh database: it exports unchanged.
	file := filepath.Join(e.dir, "off.json")
	if err := os.WriteFile(file, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	e2 := newCLIEnv(t)
	if code, _, stderr := e2.run("import", file); code != 0 {
		t.Fatalf("re-import: %d %s", code, stderr)
	}
	if _, again, _ := e2.run("export", "off"); again != exported {
		t.Errorf("export → import → export changed the document:\n%s", cmp.Diff(exported, again))
	}

	e.golden("rm", "rm", "20261130T08")
	e.golden("list-after-rm", "list")
	e.golden("rm-label-of-two", "rm", "on")
}

// TestCrashedRun: a run left "running" by a killed sectax shows as cut
// short, and its finished samples are used.
func TestCrashedRun(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", "testdata/runs.json", "testdata/crashed.json"); code != 0 {
		t.Fatal(stderr)
	}
	e.golden("crashed-list", "list")
	e.golden("crashed-show", "show", "20261130T090000")
	e.golden("crashed-compare", "compare", "20261130T090000", "off", "--format", "json")
	release, err := storetest.Ref(t, e.db).Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	_, out, _ := e.run("list")
	if !strings.Contains(out, "20261130T090000-crashed  on     2026-11-30 09:00Z  lab1  6.18.0-test  on           quick  running\n") {
		t.Errorf("while a run holds the lock, the run is not shown as running:\n%s", out)
	}
	// rm refuses a run still being measured, and takes it once its
	// measurer is gone.
	code, _, stderr := e.run("rm", "20261130T090000-crashed")
	if code != 1 || stderr != fmt.Sprintf("sectax: run 20261130T090000-crashed is still being measured by sectax (pid %d): wait for it to finish, or stop it (kill %d), then remove it\n", os.Getpid(), os.Getpid()) {
		t.Errorf("rm of a run being measured: %d %q", code, stderr)
	}
	release()
	if code, out, stderr := e.run("rm", "20261130T090000-crashed"); code != 0 || out != "removed run 20261130T090000-crashed\n" {
		t.Errorf("rm of a run cut short: %d %q %q", code, out, stderr)
	}
}

func TestImportBad(t *testing.T) {
	e := newCLIEnv(t)
	e.golden("import-bad", "import", "testdata/runs.json", "testdata/bad.json")
	if _, err := os.Stat(e.db); err == nil {
		t.Error("a failed import created the database")
	}
	e.golden("import-missing-file", "import", "testdata/nope.json")
}

func TestCorruptDatabase(t *testing.T) {
	e := newCLIEnv(t)
	os.MkdirAll(filepath.Dir(e.db), 0o755)
	junk := []byte("not a database at all\n")
	os.WriteFile(e.db, junk, 0o644)
	e.golden("corrupt-list", "list")
	e.golden("corrupt-import", "import", "testdata/runs.json")
	if b, _ := os.ReadFile(e.db); !bytes.Equal(b, junk) {
		t.Error("corrupt database was written to")
	}
}

// TestStudyBaselines: the study's table from the embedded baselines, in
// every format, with no database at all, is the renderer's for the model
// of the two baselines (report's study-wsl3.* goldens show the layout).
func TestStudyBaselines(t *testing.T) {
	e := newCLIEnv(t)
	sides := baselineSides(t, "study-wsl3-on", "study-wsl3-off")
	var md string
	for _, f := range report.ComparisonFormats.Names() {
		out := e.reachesRenderer(f, sides, "compare", "baseline:study-wsl3-on", "baseline:study-wsl3-off", "--format", f)
		if f == "md" {
			md = out
		}
	}
	for _, want := range []string{"| 14,798,678 ops/s | +176.45% |", "| 217,736 ops/s | +76.79% |", "| 0.997 s | −40.73% |", "syscall-basic, which stresses entry/exit, gains most: B is 2.76× as fast as A", "published single figures carry no interval"} {
		if !strings.Contains(md, want) {
			t.Errorf("study markdown lacks %q", want)
		}
	}
	e.golden("study-wsl2-wsl3", "compare", "baseline:study-wsl2-on", "baseline:study-wsl3-on")
	e.golden("study-same", "compare", "baseline:study-wsl3-on", "baseline:study-wsl3-on")
	e.golden("baselines", "baselines")
	e.golden("baselines-json", "baselines", "--format", "json")
	if _, err := os.Stat(e.db); err == nil {
		t.Error("comparing baselines created a database")
	}
}

// TestRunOutputImports: the document 'sectax run --format json' writes (the
// run command's own golden) imports and exports byte for byte, env
// included.
func TestRunOutputImports(t *testing.T) {
	e := newCLIEnv(t)
	want, err := os.ReadFile(filepath.Join("testdata", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := e.run("import", "testdata/run.json"); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	code, got, stderr := e.run("show", "20261130T090000-abcdef", "--format", "json")
	if code != 0 {
		t.Fatalf("show: %s", stderr)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("run output → import → show --format json (-run +show):\n%s", diff)
	}
	// export writes the same document as the one element of an array.
	_, arr, _ := e.run("export", "20261130T090000-abcdef")
	var docs []json.RawMessage
	if err := json.Unmarshal([]byte(arr), &docs); err != nil || len(docs) != 1 {
		t.Fatalf("export is not an array of one document: %v\n%s", err, arr)
	}
	var a, b bytes.Buffer
	json.Compact(&a, want)
	json.Compact(&b, docs[0])
	if a.String() != b.String() {
		t.Errorf("export's element differs from the run output")
	}
}
