package store

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/userfile"
	_ "modernc.org/sqlite" // the pure-Go "sqlite" database/sql driver
)

// ApplicationID marks an SQLite file as a sectax database ("STAX").
const ApplicationID = 0x53544158

// BusyTimeout is how long a statement waits, by default, for a lock held
// by another process before it fails with "database is locked".
const BusyTimeout = 5 * time.Second

//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrNoDatabase is returned by Open without Create when the file is absent.
var ErrNoDatabase = errors.New("no database")

// ErrOldSchema is returned by Open with ReadOnly for a store of an older
// schema, which a read-only open does not migrate.
var ErrOldSchema = errors.New("an older store schema")

// DefaultBackoff is how long a write waits before each new attempt when
// the database stays locked through the busy timeout: bounded, about 40 s
// in all with the busy timeouts of the five attempts.
var DefaultBackoff = []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}

// DB is an open sectax database. It implements measure.Sink.
type DB struct {
	db       *sql.DB
	path     string     // for messages: the file, or the URL without its password
	secrets  []string   // the URL's password, scrubbed from every driver message
	create   bool       // Options.Create: init may make the schema
	readOnly bool       // Options.ReadOnly: init writes nothing, migrates nothing
	ref      Ref        // what was opened (its measuring lock: MeasuringPID)
	out      ui.Printer // Options.Out: the waits for a busy store
	notes    *notes     // what reads cut or skipped, said on out
	busy     time.Duration
	backoff  []time.Duration
	dialect  dialect
}

// Options configure Open.
type Options struct {
	// Create makes the file (and its directory) when it does not exist,
	// and the schema in an empty file or PostgreSQL database. Without it
	// (what a command that only reads passes) nothing is created: a
	// missing file, an empty one and a database without sectax's tables
	// are ErrNoDatabase, and none is written to. (A sectax store of an
	// older schema is still migrated: its queries need the new columns.)
	Create bool
	// ReadOnly opens the store without writing anything to it (what
	// completion does): SQLite's mode=ro, no journal mode set, and a store
	// of an older schema is refused (ErrOldSchema) instead of migrated.
	ReadOnly bool
	// BusyTimeout overrides the default BusyTimeout (tests use a short one).
	BusyTimeout time.Duration
	// Backoff overrides DefaultBackoff: the waits before the second,
	// third, … attempt of a write that found the database locked.
	Backoff []time.Duration
	// Out is told, in a note, before each such wait, and in one note of
	// each stored row a read cut or skipped (bounds.go): an unparsable
	// time, a text over its bound, a sample that is not a finite number
	// (at most MaxListedNotes, and one more that counts the rest). nil
	// says nothing.
	Out ui.Printer
}

// resolveStore is the file a store path names: the path itself, or, when
// it is a symbolic link to an existing file, the link's final target,
// resolved here on purpose so that the store, its lock and the journal
// SQLite keeps beside it are all beside the target (every message then
// names the target). A dangling link is refused: the store would be
// created wherever the link points, which is whoever made the link's
// choice.
func resolveStore(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		dest, _ := os.Readlink(path)
		return "", exit.Usagef("store %s is a symbolic link to %s, which does not exist: sectax does not create a store through a link: remove the link, or pass the store itself with --db", path, run.PrintableID(dest))
	}
	return target, nil
}

// besideSuffixes are the files SQLite keeps beside a store (the lock is
// checked where it is taken, AcquireRunLock: a reader need not refuse it).
var besideSuffixes = []string{"-journal", "-wal", "-shm"}

// checkBeside refuses a store with something other than a regular file
// at the name of a file kept beside it: SQLite opens those without
// following a link (O_NOFOLLOW, its unix VFS) but would block reading a
// FIFO planted there.
func checkBeside(path string) error {
	for _, suf := range besideSuffixes {
		p := path + suf
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode().IsRegular() {
			continue
		}
		kind := userfile.Kind(fi.Mode())
		if fi.Mode()&fs.ModeSymlink != 0 {
			kind = "a symbolic link"
		}
		return exit.Usagef("%s, beside the store, is %s, not a regular file: sectax does not use it: remove it (rm %s) and run again", p, kind, p)
	}
	return nil
}

// sqliteMagic starts every SQLite 3 database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// Open opens (and migrates) the sectax database r names: an SQLite file,
// or a PostgreSQL database (see openPostgres).
func (r Ref) Open(ctx context.Context, opt Options) (*DB, error) {
	if r.IsZero() {
		return nil, errors.New("no store path: pass --db PATH or set SECTAX_DB")
	}
	if r.IsURL() {
		return openPostgres(ctx, r, opt)
	}
	path, err := resolveStore(r.s)
	if err != nil {
		return nil, err
	}
	if err := checkBeside(path); err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !opt.Create {
			return nil, fmt.Errorf("%w at %s", ErrNoDatabase, path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			if aerr := accessError(path); aerr != nil {
				return nil, aerr
			}
			return nil, fmt.Errorf("cannot create store %s: %v: pass --db or fix the directory", path, err)
		}
	case err != nil:
		if aerr := accessError(path); aerr != nil {
			return nil, aerr
		}
		return nil, fmt.Errorf("cannot open store %s: %w", path, err)
	case st.IsDir():
		return nil, exit.Usagef("database %s is a directory; pass a file path with --db", path)
	case !st.Mode().IsRegular():
		// SQLite would open a device or a FIFO and make PATH-journal
		// beside it (/dev/null-journal, mode 0666).
		return nil, exit.Usagef("database %s is not a regular file (%s); pass a file path with --db or SECTAX_DB", path, userfile.Kind(st.Mode()))
	case st.Size() > 0:
		if err := checkMagic(path); err != nil {
			return nil, err
		}
	}
	// SQLite would only say "unable to open database file": name the
	// directory or file this user cannot use, and the fix.
	if err := accessError(path); err != nil {
		return nil, err
	}
	// busy_timeout, foreign_keys and synchronous change nothing on disk;
	// journal_mode does, so it is set only after the file has been
	// recognised. synchronous=NORMAL in WAL mode loses no committed sample
	// when sectax crashes or is killed (only on a power cut may the last
	// commits roll back), and spares an fsync per sample.
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = BusyTimeout
	}
	// The DSN is an SQLite URI: escape what would end or re-code the path.
	uriPath := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	// mode=rw: without Create, SQLite must not make the file either (it
	// may have vanished since the Stat above).
	mode := "rwc"
	switch {
	case opt.ReadOnly:
		mode = "ro"
	case !opt.Create:
		mode = "rw"
	}
	dsn := "file:" + uriPath + "?mode=" + mode + "&_pragma=busy_timeout(" + strconv.FormatInt(busy.Milliseconds(), 10) + ")&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("cannot open database %s: %w", path, err)
	}
	// One connection: SQLite serialises writers anyway, and a single
	// connection keeps pragmas and transactions simple.
	sdb.SetMaxOpenConns(1)
	backoff := opt.Backoff
	if backoff == nil {
		backoff = DefaultBackoff
	}
	out := ui.Or(opt.Out)
	d := &DB{db: sdb, path: path, ref: r, out: out, busy: busy, backoff: backoff, create: opt.Create && !opt.ReadOnly, readOnly: opt.ReadOnly, notes: &notes{out: out}}
	// Opening a new file beside another opener may find SQLite busy at
	// once, without its busy handler (the change to WAL needs the file to
	// itself): init is retried as a write is, on the same backoff.
	if err := d.retry(ctx, func() error { return d.init(ctx) }); err != nil {
		sdb.Close()
		return nil, err
	}
	return d, nil
}

func checkMagic(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if aerr := accessError(path); aerr != nil {
			return aerr
		}
		return fmt.Errorf("cannot open store %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteMagic) {
		return fmt.Errorf("%s is not an SQLite database (corrupt or some other file); it was left untouched: move it away or choose another file with --db", path)
	}
	return nil
}

// Path returns the file the database lives in.
func (d *DB) Path() string { return d.path }

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// migration is one embedded schema step; version is its file-name number.
type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) { return migrationsFor(sqliteDialect) }

// migrationsFor is the one migration list, each step's SQL in the
// dialect's column types (dialect.schemaSQL).
func migrationsFor(dia dialect) ([]migration, error) {
	ents, err := migrationFS.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{v, e.Name(), dia.schemaSQL(string(b))})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

func (d *DB) wrap(err error) error {
	if err == nil {
		return nil
	}
	var be *BusyError
	var de *DiskError
	if errors.As(err, &be) || errors.As(err, &de) {
		return err
	}
	if d.dialect == postgresDialect {
		return d.wrapPostgres(err)
	}
	m := err.Error()
	code := -1
	var se interface{ Code() int }
	if errors.As(err, &se) {
		code = se.Code() & 0xff
	}
	switch {
	case code == sqliteBusy || code == sqliteLocked || strings.Contains(m, "database is locked") || strings.Contains(m, "SQLITE_BUSY"):
		return &BusyError{Path: d.path, Waited: d.busy}
	case code == sqliteCorrupt || code == sqliteNotADB || strings.Contains(m, "malformed") || strings.Contains(m, "not a database") || strings.Contains(m, "SQLITE_CORRUPT") || strings.Contains(m, "SQLITE_NOTADB"):
		return fmt.Errorf("database %s is corrupt (%v); it was left untouched: restore a backup or choose another file with --db", d.path, err)
	case code == sqliteFull || code == sqliteIOErr:
		return diskError(d.path, err)
	case code == sqliteCantOpen || code == sqliteReadOnly || code == sqlitePerm:
		if aerr := accessError(d.path); aerr != nil {
			return aerr
		}
	}
	return fmt.Errorf("database %s: %w", d.path, err)
}

func (d *DB) init(ctx context.Context) error {
	if d.dialect == postgresDialect {
		return d.initPostgres(ctx)
	}
	// One statement, so one snapshot: another process may be making the
	// schema between two reads.
	var appID, version, tables int
	if err := d.db.QueryRowContext(ctx, `SELECT (SELECT application_id FROM pragma_application_id()),
		(SELECT user_version FROM pragma_user_version()), (SELECT count(*) FROM sqlite_master)`).Scan(&appID, &version, &tables); err != nil {
		return d.wrap(err)
	}
	if appID != ApplicationID && (appID != 0 || tables > 0 || version != 0) {
		return fmt.Errorf("%s is an SQLite database of another program (application_id %#x), not a sectax database; it was left untouched: choose another file with --db", d.path, uint32(appID))
	}
	ms, err := migrations()
	if err != nil {
		return err
	}
	if version > len(ms) {
		return fmt.Errorf("database %s has schema version %d, newer than this sectax knows (%d); upgrade sectax", d.path, version, len(ms))
	}
	if version < 0 {
		return fmt.Errorf("%s is not a sectax database or is corrupt (schema version %d, application id %#x); it was left untouched: restore a backup or choose another file with --db", d.path, version, uint32(appID))
	}
	if version == 0 && !d.create {
		// An empty file: a command that only reads makes no schema in it.
		return fmt.Errorf("%w at %s (the file is empty)", ErrNoDatabase, d.path)
	}
	if version != len(ms) && d.readOnly {
		return fmt.Errorf("%w: %s has schema version %d, this sectax's is %d; it was left untouched (a command that writes migrates it)", ErrOldSchema, d.path, version, len(ms))
	}
	if d.readOnly {
		return nil
	}
	if _, err := d.db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return d.wrap(err)
	}
	if version == len(ms) {
		return nil
	}
	return d.migrate(ctx, ms)
}

// migrate brings the schema to the newest version in one write
// transaction taken before the version is read (BEGIN IMMEDIATE): several
// processes opening a new file at once (four parallel imports) wait for
// one another, and the ones after the first find the schema made.
func (d *DB) migrate(ctx context.Context, ms []migration) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return d.wrap(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return d.wrap(err)
	}
	done := false
	defer func() {
		if !done {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	var appID, version int
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return d.wrap(err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return d.wrap(err)
	}
	if version > len(ms) || version < 0 || (appID != ApplicationID && version != 0) {
		return fmt.Errorf("database %s changed while it was opened (schema version %d, application id %#x); it was left untouched: try again", d.path, version, uint32(appID))
	}
	for _, m := range ms[version:] {
		if _, err := conn.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, d.wrap(err))
		}
		// PRAGMAs take no parameters; both values are integers we control.
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
			return d.wrap(err)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			return d.wrap(err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return d.wrap(err)
	}
	done = true
	return nil
}

// Version returns the schema version recorded in the database.
func (d *DB) Version(ctx context.Context) (int, error) {
	var v int
	q := "PRAGMA user_version"
	if d.dialect == postgresDialect {
		q = "SELECT version FROM " + pgSchemaTable
	}
	err := d.db.QueryRowContext(ctx, q).Scan(&v)
	return v, d.wrap(err)
}

// IsNoDatabase reports whether err says the database file does not exist.
func IsNoDatabase(err error) bool { return errors.Is(err, ErrNoDatabase) }
