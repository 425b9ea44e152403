package store

import (
	"os"
	"path/filepath"

	"github.com/sectax/sectax/internal/exit"
)

// DefaultPath is the store --db names when it is left out: $SECTAX_DB,
// else LocalPath.
func DefaultPath() string {
	if p := os.Getenv("SECTAX_DB"); p != "" {
		return p
	}
	return LocalPath()
}

// LocalPath is where the SQLite store lives by default
// ($XDG_DATA_HOME/sectax/sectax.db, else ~/.local/share/sectax/sectax.db);
// a PostgreSQL store's spool sits beside it. "" when neither is known.
func LocalPath() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "sectax", "sectax.db")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "sectax", "sectax.db")
	}
	return ""
}

// SpoolPath is the local spool of a PostgreSQL store's runs (beside
// LocalPath). With neither XDG_DATA_HOME nor HOME set there is no such
// place, and a usage error says so (it used to be ./spool.db, in whatever
// folder sectax was started from).
func SpoolPath() (string, error) {
	local := LocalPath()
	if local == "" {
		return "", exit.Usagef("no place for the local spool of a PostgreSQL store: XDG_DATA_HOME and HOME are both unset: set one of them")
	}
	return filepath.Join(filepath.Dir(local), "spool.db"), nil
}

// CheckPath checks a --db value and makes a file name absolute, so that
// every message names the file in full; a database URL is returned as it
// is. An empty value, or no default because SECTAX_DB, XDG_DATA_HOME and
// HOME are all unset, is a usage error: SQLite would take "" for a
// temporary database that vanishes, and a bare file name would land in
// whatever directory sectax was started from.
func CheckPath(p string) (string, error) {
	if p == "" {
		if def := DefaultPath(); def != "" {
			return "", exit.Usagef("--db '' names no file: pass --db PATH, or leave --db out to use %s", def)
		}
		return "", exit.Usagef("no place for the store: SECTAX_DB, XDG_DATA_HOME and HOME are all unset: pass --db PATH or set SECTAX_DB")
	}
	if err := CheckRef(p); err != nil {
		return "", err
	}
	if IsURL(p) {
		return p, nil // a database URL, not a file
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", exit.Usagef("--db %s: %v: pass an absolute path", p, err)
	}
	return abs, nil
}
