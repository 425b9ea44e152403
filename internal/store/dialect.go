package store

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// dialect is the SQL engine behind a DB. The store's queries are written
// once, with SQLite's "?" and "?N" placeholders; the PostgreSQL driver
// rewrites them (rebind) at the driver level, so the only other
// differences live in init, Version, wrap, the schema's column types
// (schemaSQL) and lockRuns.
type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

func (d dialect) String() string {
	if d == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

// isURL reports whether db names a PostgreSQL database (postgres:// or
// postgresql://) rather than an SQLite file.
func isURL(db string) bool {
	l := strings.ToLower(db)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// rebind turns SQLite placeholders into PostgreSQL's: "?N" becomes "$N"
// and each bare "?" the next "$n". Quoted strings, quoted identifiers and
// "--" comments are copied unchanged.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+1])
			i += j
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(q[i+1 : j])
				i = j - 1
			} else {
				n++
				b.WriteString(strconv.Itoa(n))
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pgTypes are the column types the schema (migrations/*.sql, written once
// in SQLite's words) takes on PostgreSQL: 64-bit integers (SQLite's
// INTEGER is 64 bits, PostgreSQL's 32), double-precision reals
// (PostgreSQL's REAL is single precision), and byte-wise text order
// (COLLATE "C", as SQLite's BINARY) so that rows sort the same on both
// engines whatever the server's locale.
var pgTypes = strings.NewReplacer("INTEGER", "BIGINT", "REAL", "DOUBLE PRECISION", "TEXT", `TEXT COLLATE "C"`)

var sqlTypeWord = regexp.MustCompile(`\b(INTEGER|REAL|TEXT)\b`)

// schemaSQL is a migration's SQL in the dialect: for PostgreSQL the column
// types of pgTypes, comment lines left as they are.
func (d dialect) schemaSQL(sql string) string {
	if d != postgresDialect {
		return sql
	}
	lines := strings.Split(sql, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "--") {
			continue
		}
		lines[i] = sqlTypeWord.ReplaceAllStringFunc(l, pgTypes.Replace)
	}
	return strings.Join(lines, "\n")
}

// hasPassword reports whether a postgres:// URL carries a password (in
// its user part or as a password= parameter).
func hasPassword(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return true // cannot tell: treat it as secret
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			return true
		}
	}
	return u.Query().Has("password")
}

// normalizeURL lowercases the scheme of a postgres:// URL (any case is
// PostgreSQL, and pgx recognises only the lowercase one: it took
// POSTGRES://… for key=value text and dropped the host and database).
func normalizeURL(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	return strings.ToLower(raw[:i]) + raw[i:]
}
