package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/tampertest"
	"github.com/sectax/sectax/internal/testutil"
)

// hostileSecret is the password of the PostgreSQL URL the hostile store
// test runs every command with: it must appear in no output.
const hostileSecret = "Pw0rdHostile"

// TestHostileStore tampers every column of the runs, results, metrics and
// samples tables of an SQLite and a PostgreSQL store (huge values, control
// characters, NaN and ±Inf, bad dates, negative and far positions, text
// in integer columns, millions of samples) and runs every command that
// reads them: no panic, exit 0 or one line on stderr per note or error,
// bounded output, no password of the URL anywhere, and whatever export
// writes imports again.
func TestHostileStore(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("imports and tampers 36 stores")
	}
	c := startPG(t)
	// The cut of a run's samples, shown on 30,000 rows rather than
	// millions (docs/benchmarks.md measures it at the real bound).
	old := store.MaxReadRunSamples
	store.MaxReadRunSamples = 20_000
	t.Cleanup(func() { store.MaxReadRunSamples = old })
	cmds := [][]string{
		{"list"}, {"list", "--format", "json"},
		{"show", "20261130T060000-on1"}, {"show", "20261130T080000-off1", "--format", "json"},
		{"compare", "on", "off"}, {"compare", "on", "off", "--format", "json"}, {"compare", "on", "off", "--format", "md"},
		{"compare", "on", "off", "--format", "html"}, {"compare", "on", "off", "--format", "csv"},
		{"export", "on", "off"}, {"export", "on", "--format", "jsonl"},
		{"fleet"}, {"rm", "20261130T060000-on1"},
	}
	// Every tamper on SQLite; on PostgreSQL, whose reads of every tamper
	// internal/store's TestHostileRows checks, a few, run with a password
	// in the URL that no message may quote.
	onPG := map[string]bool{"escapes": true, "garbage json": true, "huge label": true, "text integers": true}
	for _, tp := range tampertest.Tampers() {
		for _, engine := range []string{"sqlite", "postgres"} {
			if engine == "postgres" && !onPG[tp.Name] {
				continue
			}
			t.Run(strings.ReplaceAll(tp.Name, " ", "-")+"/"+engine, func(t *testing.T) {
				t.Parallel() // a store each; MaxReadRunSamples is restored after them all
				e := newCLIEnv(t)
				dsn := e.db
				if engine == "postgres" {
					dsn = c.NewDatabase(t)
					e.db = strings.Replace(dsn, "@/", ":"+hostileSecret+"@/", 1)
				}
				if code, _, errs := e.run("import", "testdata/runs.json"); code != 0 {
					t.Fatalf("import: %d %s", code, errs)
				}
				tampertest.Apply(t, tp, dsn)
				todo := cmds
				if tp.Many {
					todo = [][]string{{"list"}, {"compare", "on", "off", "--format", "json"}, {"export", "on", "--format", "jsonl"}}
				}
				for _, args := range todo {
					checkHostileOutput(t, e, args)
				}
			})
		}
	}
}

// checkHostileOutput runs one command on a tampered store and checks what
// it prints.
func checkHostileOutput(t *testing.T, e *cliEnv, args []string) {
	t.Helper()
	code, stdout, stderr := e.run(args...)
	const maxOut = 16 << 20
	if len(stdout)+len(stderr) > maxOut {
		t.Errorf("%v: %d bytes of output, over %d", args, len(stdout)+len(stderr), maxOut)
	}
	if strings.Contains(stdout+stderr, hostileSecret) {
		t.Errorf("%v: the password is printed", args)
	}
	lines := strings.Split(strings.TrimSuffix(testutil.Unwrap(stderr), "\n"), "\n")
	if len(lines) > store.MaxListedNotes+3 {
		t.Errorf("%v: %d lines on stderr: %.300q", args, len(lines), stderr)
	}
	for _, l := range lines {
		if len(l) > 64<<10 {
			t.Errorf("%v: a stderr line of %d bytes: %.200q", args, len(l), l)
		}
	}
	if code != 0 && (code != ExitUsage && code != 1 || stderr == "") {
		t.Errorf("%v: exit %d, stderr %.300q", args, code, stderr)
	}
	if code == 0 && args[0] == "export" {
		f := filepath.Join(t.TempDir(), "export.json")
		if err := os.WriteFile(f, []byte(stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		again := newCLIEnv(t)
		if code, _, errs := again.run("import", f); code != 0 {
			t.Errorf("%v wrote what import refuses: %s", args, errs)
		}
	}
}
