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
