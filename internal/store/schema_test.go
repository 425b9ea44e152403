package store

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// TestPostgresSchema: the PostgreSQL schema is generated from the one
// written for SQLite (64-bit integers, double-precision reals, byte-wise
// text order); the golden file shows what PostgreSQL gets.
func TestPostgresSchema(t *testing.T) {
	ms, err := migrationsFor(postgresDialect)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range ms {
		b.WriteString("-- " + m.name + "\n" + m.sql + "\n")
	}
	testutil.Golden(t, "testdata/postgres-schema.sql", []byte(b.String()))
	lite, err := migrationsFor(sqliteDialect)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range lite {
		if strings.Contains(m.sql, "BIGINT") != strings.Contains(ms[i].sql, "BIGINT") && strings.Contains(m.sql, "BIGINT") {
			t.Errorf("%s: BIGINT lost", m.name)
		}
		if strings.Contains(ms[i].sql, " INTEGER") || strings.Contains(ms[i].sql, " REAL") {
			t.Errorf("%s: a SQLite type left for PostgreSQL", m.name)
		}
	}
	if got := postgresDialect.schemaSQL("-- TEXT stays\nid TEXT, n INTEGER, v REAL, t TEXTUAL"); got != "-- TEXT stays\nid TEXT COLLATE \"C\", n BIGINT, v DOUBLE PRECISION, t TEXTUAL" {
		t.Errorf("schemaSQL: %q", got)
	}
}
