package store

import (
	"net/url"
	"regexp"
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

// CheckRef refuses a database reference that is neither a postgres:// URL
// nor a plain file path, in one line that does not echo it.
func CheckRef(db string) error {
	if IsURL(db) {
		return nil
	}
	if looksLikeDSN(db) {
		return errNotARef
	}
	return nil
}

// looksLikeDSN reports whether db, which is not a postgres:// URL, names a
// database some other way than by a file path.
func looksLikeDSN(db string) bool {
	return strings.Contains(db, "://") || uriScheme.MatchString(db) || keyValue.MatchString(db)
}

// DisplayName is the one way a database reference is printed (messages,
// dry runs, resume lines, status, errors): a file path as it is, a
// postgres:// URL without its password (user part and password=), and
// anything else, which CheckRef refuses, not at all.
func DisplayName(db string) string {
	switch {
	case IsURL(db):
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
	if !IsURL(raw) {
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
