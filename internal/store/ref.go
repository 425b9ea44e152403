package store

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/exit"
)

// A database reference (--db, SECTAX_DB) is an SQLite file path or a
// postgres:// (postgresql://) URL, nothing else. Anything that looks like
// another way to name a database (libpq's key=value strings, another
// scheme, "postgres:" without "//") is refused without being echoed: it
// may hold a password, and taken for a path it made folders and a file
// named after it, and every message printed it.

// uriScheme is what starts a URI ("mysql:", "pg:", "postgres:"); a file
// name that starts so is written ./NAME.
var uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// keyValue is one field of a libpq key=value connection string
// ("host=db", "password=x").
var keyValue = regexp.MustCompile(`(^|\s)[A-Za-z_]+\s*=`)

// errNotARef is the one line a refused reference gets; it does not echo it.
var errNotARef = exit.New(exit.Usage, "--db (or SECTAX_DB) is neither a file path nor a postgres:// URL; it is not shown, as it may hold a password: "+
	"pass a file path (./NAME for a name that starts with SCHEME: or KEY=) or postgres://USER@HOST/DATABASE (the password in ~/.pgpass)")

// Ref names one store: an SQLite file by its absolute path, or a
// PostgreSQL database by its postgres:// URL (the scheme in lowercase),
// password included. It is parsed once from what the user wrote (--db,
// SECTAX_DB, the default: ParseRef) and then opened, locked and shown
// through its methods; the zero Ref names no store.
type Ref struct{ s string }

// ParseRef checks a --db value and makes a file name absolute, so that
// every message names the file in full; a postgres:// URL is kept as it
// is, its scheme in lowercase. An empty value, or no default because
// SECTAX_DB, XDG_DATA_HOME and HOME are all unset, is a usage error:
// SQLite would take "" for a temporary database that vanishes, and a bare
// file name would land in whatever directory sectax was started from.
// Anything that names a database some other way (libpq's key=value text,
// another scheme) is refused in one line that does not echo it.
func ParseRef(s string) (Ref, error) {
	if s == "" {
		if def := DefaultPath(); def != "" {
			return Ref{}, exit.Usagef("--db '' names no file: pass --db PATH, or leave --db out to use %s", def)
		}
		return Ref{}, exit.Usagef("no place for the store: SECTAX_DB, XDG_DATA_HOME and HOME are all unset: pass --db PATH or set SECTAX_DB")
	}
	if isURL(s) {
		return Ref{normalizeURL(s)}, nil
	}
	if looksLikeDSN(s) {
		return Ref{}, errNotARef
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return Ref{}, exit.Usagef("--db %s: %v: pass an absolute path", s, err)
	}
	return Ref{abs}, nil
}

// refOf is the Ref of a path sectax made itself (the spool) or a test's,
// taken as it is.
func refOf(s string) Ref {
	if isURL(s) {
		return Ref{normalizeURL(s)}
	}
	return Ref{s}
}

// IsZero reports whether r names no store.
func (r Ref) IsZero() bool { return r.s == "" }

// IsURL reports whether r names a PostgreSQL database rather than an
// SQLite file.
func (r Ref) IsURL() bool { return isURL(r.s) }

// Path is the SQLite file r names, "" for a PostgreSQL database.
func (r Ref) Path() string {
	if r.IsURL() {
		return ""
	}
	return r.s
}

// Locate is how r is named to a later process (the resume unit, the
// batch file of a WSL campaign, a campaign's stored options): the file's
// absolute path, or the URL in full, password included (Secret splits
// it off).
func (r Ref) Locate() string { return r.s }

// HasPassword reports whether r is a postgres:// URL that carries a
// password (in its user part or as a password= parameter).
func (r Ref) HasPassword() bool { return r.IsURL() && hasPassword(r.s) }

// looksLikeDSN reports whether db, which is not a postgres:// URL, names a
// database some other way than by a file path.
func looksLikeDSN(db string) bool {
	return strings.Contains(db, "://") || uriScheme.MatchString(db) || keyValue.MatchString(db)
}

// String is the one way a store reference is printed (messages, dry
// runs, resume lines, status, errors): a file path as it is, a
// postgres:// URL without its password (user part and password=).
func (r Ref) String() string {
	if r.IsURL() {
		return redactURL(r.s)
	}
	return r.s
}

// GoString keeps the password out of %#v as String keeps it out of %v.
func (r Ref) GoString() string { return "store.Ref(" + strconv.Quote(r.String()) + ")" }

// DisplayName is how a --db value that may not parse is printed (the
// flag's default in --help): as its Ref is, and a value ParseRef refuses
// not at all.
func DisplayName(db string) string {
	switch {
	case isURL(db):
		return redactURL(normalizeURL(db))
	case looksLikeDSN(db):
		return "(the database reference, not shown)"
	}
	return db
}

// passwords are the secrets of a database reference (the password of its
// user part and of a password= parameter, as written and decoded), so that
// a message from the driver can be scrubbed of them whatever it quotes.
func passwords(raw string) []string {
	if !isURL(raw) {
		return nil
	}
	var out []string
	add := func(s string) {
		if len(s) >= 3 { // shorter would scrub ordinary words; pgx redacts anyway
			out = append(out, s)
		}
	}
	rest := raw[strings.Index(raw, "://")+3:]
	if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
		if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
			add(pw)
			if u, err := url.PathUnescape(pw); err == nil {
				add(u)
			}
		}
	}
	if _, q, ok := strings.Cut(raw, "?"); ok {
		for _, kv := range strings.Split(q, "&") {
			if k, v, ok := strings.Cut(kv, "="); ok && k == "password" {
				add(v)
				if u, err := url.QueryUnescape(v); err == nil {
					add(u)
				}
			}
		}
	}
	return out
}

// scrub removes the secrets from a message.
func scrub(msg string, secrets []string) string {
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "xxxxx")
	}
	return msg
}
