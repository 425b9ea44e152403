package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// A shared store on PostgreSQL: the same tables, migrations and queries as
// the SQLite store (per-dialect SQL only in migrations/postgres), reached
// through pgx's database/sql driver. Many hosts may write at once: every
// write is a transaction, migrations run under an advisory lock, and an
// import takes a per-run advisory lock so that two hosts importing the
// same run store it exactly once.

//go:embed migrations/postgres/*.sql
var pgMigrationFS embed.FS

// pgSchemaTable records the schema version (SQLite's user_version) and the
// application id (SQLite's application_id) of a PostgreSQL database.
const pgSchemaTable = "sectax_schema"

// pgConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout, so an unreachable host fails in seconds, not minutes.
const pgConnectTimeout = 10 * time.Second

// openPostgres opens (and migrates) the PostgreSQL database at rawURL.
// opt.Create is not needed: the database itself must exist (the server's
// administrator makes it), its tables are created on first use.
func openPostgres(ctx context.Context, rawURL string, opt Options) (*DB, error) {
	rawURL = normalizeURL(rawURL)
	show := redactURL(rawURL)
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		cause := err
		if u := errors.Unwrap(err); u != nil {
			cause = u
		}
		return nil, fmt.Errorf("%s is not a valid PostgreSQL URL (%v); the form is postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE", show, cause)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	sdb := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)})
	sdb.SetMaxOpenConns(4)
	sdb.SetConnMaxIdleTime(time.Minute)
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = BusyTimeout
	}
	d := &DB{db: sdb, path: show, busy: busy, dialect: postgresDialect}
	if err := sdb.PingContext(ctx); err != nil {
		sdb.Close()
		return nil, d.wrap(err)
	}
	if err := d.init(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	return d, nil
}

// redactURL is the URL without its password, for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the PostgreSQL URL"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// initPostgres checks that the database belongs to sectax and migrates it,
// all in one transaction under an advisory lock, so that hosts opening a
// new database at the same moment create its tables once.
func (d *DB) initPostgres(ctx context.Context) error {
	ms, err := migrationsFor(postgresDialect)
	if err != nil {
		return err
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", int64(ApplicationID)); err != nil {
		return d.wrap(err)
	}
	var hasSchema, hasRuns bool
	if err := tx.QueryRowContext(ctx, "SELECT to_regclass(?) IS NOT NULL, to_regclass('runs') IS NOT NULL", pgSchemaTable).Scan(&hasSchema, &hasRuns); err != nil {
		return d.wrap(err)
	}
	version := 0
	if hasSchema {
		var app int64
		if err := tx.QueryRowContext(ctx, "SELECT version, application FROM "+pgSchemaTable).Scan(&version, &app); err != nil {
			return fmt.Errorf("database %s: table %s is not sectax's (%v); it was left untouched: choose another database", d.path, pgSchemaTable, d.wrap(err))
		}
		if app != ApplicationID {
			return fmt.Errorf("database %s belongs to another program (application %#x), not sectax; it was left untouched: choose another database", d.path, app)
		}
	} else if hasRuns {
		return fmt.Errorf("database %s already has a table \"runs\" that is not sectax's; it was left untouched: choose another database", d.path)
	}
	if version > len(ms) {
		return fmt.Errorf("database %s has schema version %d, newer than this sectax knows (%d); upgrade sectax", d.path, version, len(ms))
	}
	if version < 0 {
		return fmt.Errorf("database %s is corrupt (schema version %d in %s); it was left untouched: restore a backup or choose another database", d.path, version, pgSchemaTable)
	}
	if version == len(ms) {
		return nil // nothing to do; the deferred rollback ends the transaction
	}
	if !hasSchema {
		if _, err := tx.ExecContext(ctx, "CREATE TABLE "+pgSchemaTable+" (version BIGINT NOT NULL, application BIGINT NOT NULL)"); err != nil {
			return d.wrap(err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+pgSchemaTable+"(version, application) VALUES (0, ?)", int64(ApplicationID)); err != nil {
			return d.wrap(err)
		}
	}
	for _, m := range ms[version:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, d.wrap(err))
		}
		if _, err := tx.ExecContext(ctx, "UPDATE "+pgSchemaTable+" SET version = ?", m.version); err != nil {
			return d.wrap(err)
		}
	}
	return d.wrap(tx.Commit())
}

// lockRuns serialises, across hosts, the writers of these run ids until
// the transaction ends (PostgreSQL advisory locks, taken in sorted order
// so that two imports of the same runs cannot deadlock). SQLite has one
// writer at a time anyway.
func (d *DB) lockRuns(ctx context.Context, q querier, ids []string) error {
	if d.dialect != postgresDialect {
		return nil
	}
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	for _, id := range sorted {
		if _, err := q.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", id); err != nil {
			return err
		}
	}
	return nil
}

// wrapPostgres turns a driver error into one line naming the cause and
// the fix.
func (d *DB) wrapPostgres(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return fmt.Errorf("PostgreSQL %s: authentication failed (%s); check the user and password in the URL or ~/.pgpass", d.path, pe.Message)
		case "3D000":
			return fmt.Errorf("PostgreSQL %s: %s; create it (createdb) or fix the database name in the URL", d.path, pe.Message)
		case "42501":
			return fmt.Errorf("PostgreSQL %s: permission denied (%s); grant the user CREATE and write access on the database", d.path, pe.Message)
		case "53300":
			return fmt.Errorf("PostgreSQL %s: too many connections; try again later", d.path)
		}
		return fmt.Errorf("PostgreSQL %s: %s (SQLSTATE %s)", d.path, pe.Message, pe.Code)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("PostgreSQL %s: host %q is unknown; check the host in the URL", d.path, dns.Name)
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("PostgreSQL %s is unreachable (no answer within the connect timeout); check the host, port and network", d.path)
	case errors.As(err, &ce) || errors.As(err, &ne):
		cause := lastCause(err)
		var op *net.OpError
		if errors.As(err, &op) {
			inner := op.Err
			var se *os.SyscallError
			if errors.As(inner, &se) {
				inner = se.Err
			}
			cause = fmt.Sprintf("%s %s: %v", op.Op, op.Addr, inner)
		}
		return fmt.Errorf("PostgreSQL %s is unreachable (%s); check the host and port and that the server runs", d.path, cause)
	case errors.Is(err, driver.ErrBadConn) || pgconn.SafeToRetry(err):
		return fmt.Errorf("PostgreSQL %s: the connection was lost (%s); try again", d.path, lastCause(err))
	}
	return fmt.Errorf("database %s: %s", d.path, oneLine(err.Error()))
}

// lastCause is the innermost error's message on one line ("connection
// refused"), without the driver's prefixes that repeat the user and host.
func lastCause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return oneLine(err.Error())
		}
		err = u
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// rebindConnector hands database/sql pgx connections that accept the
// store's SQLite placeholders.
type rebindConnector struct{ driver.Connector }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*stdlib.Conn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("store: unexpected pgx connection type %T", conn)
	}
	return rebindConn{sc}, nil
}

// rebindConn is a pgx connection whose queries are rebound; everything
// else (transactions, ping, session reset, argument checks) is pgx's own.
type rebindConn struct{ *stdlib.Conn }

func (c rebindConn) Prepare(q string) (driver.Stmt, error) { return c.Conn.Prepare(rebind(q)) }

func (c rebindConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(q))
}

func (c rebindConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(q), args)
}

func (c rebindConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(q), args)
}

// Secret splits the password off a postgres:// URL for a process that
// must reach the store later without the secret in its command line (the
// resume unit, world-readable): public is the URL without the password
// and with passfile=PASSFILE added, line the one PGPASSFILE line (host,
// port, database, user and password, as pgx matches them) to write to
// PASSFILE, readable by root only. ok is false when the URL holds no
// password (public is then the URL unchanged).
func Secret(raw, passfile string) (public, line string, ok bool, err error) {
	raw = normalizeURL(raw)
	if !HasPassword(raw) {
		return raw, "", false, nil
	}
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return "", "", false, fmt.Errorf("%s is not a valid PostgreSQL URL (%v)", redactURL(raw), err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", false, fmt.Errorf("%s is not a valid PostgreSQL URL", redactURL(raw))
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	q.Del("password")
	q.Set("passfile", passfile)
	u.RawQuery = q.Encode()
	host := cfg.Host
	if network, _ := pgconn.NetworkAddress(cfg.Host, cfg.Port); network == "unix" {
		host = "localhost"
	}
	esc := strings.NewReplacer(`\`, `\\`, `:`, `\:`)
	fields := []string{host, fmt.Sprint(cfg.Port), cfg.Database, cfg.User, cfg.Password}
	for i, f := range fields {
		if strings.ContainsAny(f, "\n\r") {
			return "", "", false, errors.New("the PostgreSQL URL holds a line break; it cannot go into a password file")
		}
		fields[i] = esc.Replace(f)
	}
	return u.String(), strings.Join(fields, ":") + "\n", true, nil
}
