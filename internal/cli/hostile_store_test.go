package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/store"
)

// hostileSecret is the password of the PostgreSQL URL the hostile store
// test runs every command with: it must appear in no output.
const hostileSecret = "Pw0rdHostile"

// tamper is one hostile change to a freshly imported store: SQL run with
// the engine's own connection (no foreign keys enforced), with args.
type tamper struct {
	name string
	// cmds, when set, are the commands to run instead of all.
	cmds [][]string
	// sqlite and postgres are the statements on each engine ("" = the
	// same as sqlite).
	sqlite, postgres string
	args             []any
	// pgArgs, when set, are the args on PostgreSQL (whose indexes take
	// at most about 8 kB a row: a longer label cannot be stored there).
	pgArgs []any
}

func hostileTampers() []tamper {
	huge := strings.Repeat("h", 6<<20) // over the read limit of an environment
	bigHost := `{"hostname":"` + strings.Repeat("x", 1<<20) + "\x1b]52;c;cHduZWQ=\x07" + `","kernel":{"release":"6.18\x1b[2J"}}`
	escape := "on\x1b]0;owned\x07\r\x1b[2K"
	return []tamper{
		{name: "huge env", sqlite: `UPDATE runs SET env = ?`, args: []any{`{"hostname":"` + huge + `"}`}},
		{name: "big hostname", sqlite: `UPDATE runs SET env = ?`, args: []any{bigHost}},
		{name: "huge label", sqlite: `UPDATE runs SET label = ? WHERE id = '20261130T060000-on1'`, args: []any{strings.Repeat("L", 1<<20)},
			pgArgs: []any{strings.Repeat("L", 6000)}},
		{name: "escapes", sqlite: `UPDATE runs SET label = ?, suite = ?, status = ?, tool_version = ?, cpus = ?`, args: []any{escape, escape, escape, escape, escape}},
		{name: "bad started", sqlite: `UPDATE runs SET started = 'yesterday' WHERE id = '20261130T060000-on1'`},
		{name: "bad finished", sqlite: `UPDATE runs SET finished = '` + strings.Repeat("9", 5000) + `' WHERE id = '20261130T080000-off1'`},
		{name: "huge status", sqlite: `UPDATE runs SET status = ?`, args: []any{strings.Repeat("s", 1<<20)}},
		{name: "huge workload", sqlite: `UPDATE results SET workload = ?, engine = ?`, args: []any{strings.Repeat("w", 1<<20), strings.Repeat("e", 1<<20)}},
		{name: "garbage json", sqlite: `UPDATE results SET warnings = 'not json', params = '[', failures = '{}', extra = '7'`},
		{name: "huge warnings", sqlite: `UPDATE results SET warnings = ?`, args: []any{`["` + strings.Repeat("W", 2<<20) + `"]`}},
		{name: "huge metric names", sqlite: `UPDATE metrics SET name = name || ?, unit = ?, better = ?`, args: []any{strings.Repeat("n", 1<<20), strings.Repeat("u", 1<<20), "sideways"},
			pgArgs: []any{strings.Repeat("n", 6000), strings.Repeat("u", 1<<20), "sideways"}},
		{name: "negative positions", sqlite: `UPDATE samples SET result_idx = -1, metric_idx = -5 WHERE seq = 0 AND result_idx = 0 AND metric_idx = 0`},
		{name: "negative result idx", sqlite: `UPDATE results SET idx = -3 WHERE idx = 0`},
		{name: "far metric idx", sqlite: `UPDATE metrics SET idx = 5000000 WHERE idx = 0`},
		{name: "infinite samples", sqlite: `UPDATE samples SET value = 9e999 WHERE seq = 1`, postgres: `UPDATE samples SET value = 'Infinity' WHERE seq = 1`},
		{name: "nan samples", sqlite: `UPDATE samples SET value = 'NaN' WHERE seq = 2`, postgres: `UPDATE samples SET value = 'NaN' WHERE seq = 2`},
		{name: "text integers", sqlite: `UPDATE runs SET runs = 'many', warmup = x'00ff', seed = -1`, postgres: `UPDATE runs SET runs = -9223372036854775808, warmup = -1, seed = -1`},
		{name: "many samples", sqlite: `WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n+1 FROM s WHERE n < 150000)
			INSERT INTO samples(run_id, result_idx, metric_idx, seq, value) SELECT '20261130T060000-on1', 0, 0, n+1000, 1.5 FROM s`,
			cmds: [][]string{{"list"}, {"compare", "on", "off", "--format", "json"}, {"export", "on", "--format", "jsonl"}}},
	}
}

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
	// The cut of a run's samples, shown on 150,000 rows rather than
	// millions (docs/benchmarks.md measures it at the real bound).
	old := store.MaxReadRunSamples
	store.MaxReadRunSamples = 100_000
	t.Cleanup(func() { store.MaxReadRunSamples = old })
	cmds := [][]string{
		{"list"}, {"list", "--format", "json"},
		{"show", "20261130T060000-on1"}, {"show", "20261130T080000-off1", "--format", "json"},
		{"compare", "on", "off"}, {"compare", "on", "off", "--format", "json"}, {"compare", "on", "off", "--format", "md"},
		{"compare", "on", "off", "--format", "html"}, {"compare", "on", "off", "--format", "csv"},
		{"export", "on", "off"}, {"export", "on", "--format", "jsonl"},
		{"fleet"}, {"rm", "20261130T060000-on1"},
	}
	for _, tp := range hostileTampers() {
		for _, engine := range []string{"sqlite", "postgres"} {
			t.Run(strings.ReplaceAll(tp.name, " ", "-")+"/"+engine, func(t *testing.T) {
				e := newCLIEnv(t)
				driver, dsn, q, args := "sqlite", e.db, tp.sqlite, tp.args
				if engine == "postgres" {
					dsn = c.NewDatabase(t)
					e.db = strings.Replace(dsn, "@/", ":"+hostileSecret+"@/", 1)
					driver = "pgx"
					if tp.postgres != "" {
						q = tp.postgres
					}
					if tp.pgArgs != nil {
						args = tp.pgArgs
					}
					for n := 1; strings.Contains(q, "?"); n++ {
						q = strings.Replace(q, "?", "$"+strconv.Itoa(n), 1)
					}
				}
				if code, _, errs := e.run("import", "testdata/runs.json"); code != 0 {
					t.Fatalf("import: %d %s", code, errs)
				}
				raw, err := sql.Open(driver, dsn)
				if err != nil {
					t.Fatal(err)
				}
				if engine == "postgres" {
					raw.SetMaxOpenConns(1) // session_replication_role holds for the one connection
					if _, err := raw.Exec(`SET session_replication_role = replica`); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := raw.ExecContext(context.Background(), q, args...); err != nil {
					t.Fatalf("tamper: %v", err)
				}
				raw.Close()
				todo := cmds
				if tp.cmds != nil {
					todo = tp.cmds
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
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
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
