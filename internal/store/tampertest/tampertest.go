// Package tampertest is what anyone who can write a store's file or
// database may do to its rows (Tampers), and the one way a test does it
// (Apply), for the store's own reads (internal/store) and every command
// over them (internal/cli). It does not import the store.
package tampertest

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" database/sql driver
)

// Tamper is one hostile change to a store that holds the runs
// 20261130T060000-on1 (labelled on) and 20261130T080000-off1 (off): SQL
// run with the engine's own connection (no foreign keys enforced), with
// Args. It is what anyone who can write a store's file or database may do,
// and every reader must survive it.
type Tamper struct {
	Name string
	// Many says the change adds many rows (a command that reads them all
	// takes seconds): only the reads it is about need run.
	Many bool
	// SQLite and Postgres are the statements on each engine ("" = the
	// same as SQLite).
	SQLite, Postgres string
	Args             []any
	// PGArgs, when set, are the args on PostgreSQL (whose indexes take
	// at most about 8 kB a row: a longer label cannot be stored there).
	PGArgs []any
}

// Tampers change every column of the runs, results, metrics and samples
// tables: huge values, control characters, NaN and ±Inf, bad dates,
// negative and far positions, text in integer columns, many samples.
func Tampers() []Tamper {
	huge := strings.Repeat("h", 6<<20) // over the read limit of an environment
	bigHost := `{"hostname":"` + strings.Repeat("x", 1<<20) + "\x1b]52;c;cHduZWQ=\x07" + `","kernel":{"release":"6.18\x1b[2J"}}`
	escape := "on\x1b]0;owned\x07\r\x1b[2K"
	return []Tamper{
		{Name: "huge env", SQLite: `UPDATE runs SET env = ?`, Args: []any{`{"hostname":"` + huge + `"}`}},
		{Name: "big hostname", SQLite: `UPDATE runs SET env = ?`, Args: []any{bigHost}},
		{Name: "huge label", SQLite: `UPDATE runs SET label = ? WHERE id = '20261130T060000-on1'`, Args: []any{strings.Repeat("L", 1<<20)},
			PGArgs: []any{strings.Repeat("L", 6000)}},
		{Name: "escapes", SQLite: `UPDATE runs SET label = ?, suite = ?, status = ?, tool_version = ?, cpus = ?`, Args: []any{escape, escape, escape, escape, escape}},
		{Name: "bad started", SQLite: `UPDATE runs SET started = 'yesterday' WHERE id = '20261130T060000-on1'`},
		{Name: "bad finished", SQLite: `UPDATE runs SET finished = '` + strings.Repeat("9", 5000) + `' WHERE id = '20261130T080000-off1'`},
		{Name: "huge status", SQLite: `UPDATE runs SET status = ?`, Args: []any{strings.Repeat("s", 1<<20)}},
		{Name: "huge workload", SQLite: `UPDATE results SET workload = ?, engine = ?`, Args: []any{strings.Repeat("w", 1<<20), strings.Repeat("e", 1<<20)}},
		{Name: "garbage json", SQLite: `UPDATE results SET warnings = 'not json', params = '[', failures = '{}', extra = '7'`},
		{Name: "huge warnings", SQLite: `UPDATE results SET warnings = ?`, Args: []any{`["` + strings.Repeat("W", 2<<20) + `"]`}},
		{Name: "huge metric names", SQLite: `UPDATE metrics SET name = name || ?, unit = ?, better = ?`, Args: []any{strings.Repeat("n", 1<<20), strings.Repeat("u", 1<<20), "sideways"},
			PGArgs: []any{strings.Repeat("n", 6000), strings.Repeat("u", 1<<20), "sideways"}},
		{Name: "negative positions", SQLite: `UPDATE samples SET result_idx = -1, metric_idx = -5 WHERE seq = 0 AND result_idx = 0 AND metric_idx = 0`},
		{Name: "negative result idx", SQLite: `UPDATE results SET idx = -3 WHERE idx = 0`},
		{Name: "far metric idx", SQLite: `UPDATE metrics SET idx = 5000000 WHERE idx = 0`},
		{Name: "infinite samples", SQLite: `UPDATE samples SET value = 9e999 WHERE seq = 1`, Postgres: `UPDATE samples SET value = 'Infinity' WHERE seq = 1`},
		{Name: "nan samples", SQLite: `UPDATE samples SET value = 'NaN' WHERE seq = 2`, Postgres: `UPDATE samples SET value = 'NaN' WHERE seq = 2`},
		{Name: "text integers", SQLite: `UPDATE runs SET runs = 'many', warmup = x'00ff', seed = -1`, Postgres: `UPDATE runs SET runs = -9223372036854775808, warmup = -1, seed = -1`},
		{Name: "many samples", SQLite: `WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n+1 FROM s WHERE n < 30000)
			INSERT INTO samples(run_id, result_idx, metric_idx, seq, value) SELECT '20261130T060000-on1', 0, 0, n+1000, 1.5 FROM s`,
			Many: true},
	}
}

// Apply makes the change tp on the store at dsn, a file or a postgres://
// URL, with a connection of its own (for PostgreSQL with triggers and
// foreign keys off, as its owner may).
func Apply(t testing.TB, tp Tamper, dsn string) {
	t.Helper()
	driver, q, args := "sqlite", tp.SQLite, tp.Args
	pg := strings.HasPrefix(dsn, "postgres://")
	if pg {
		driver = "pgx"
		if tp.Postgres != "" {
			q = tp.Postgres
		}
		if tp.PGArgs != nil {
			args = tp.PGArgs
		}
		for n := 1; strings.Contains(q, "?"); n++ {
			q = strings.Replace(q, "?", "$"+strconv.Itoa(n), 1)
		}
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if pg {
		raw.SetMaxOpenConns(1) // session_replication_role holds for the one connection
		if _, err := raw.Exec(`SET session_replication_role = replica`); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := raw.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("tamper %s: %v", tp.Name, err)
	}
}
