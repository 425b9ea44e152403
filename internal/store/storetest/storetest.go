// Package storetest opens stores for the tests of other packages: a
// store.Ref parsed from a test's path or URL (the test fails on one
// store.ParseRef refuses), and a store opened there.
package storetest

import (
	"context"
	"testing"

	"github.com/sectax/sectax/internal/store"
)

// Ref is the store s names (store.ParseRef); the test fails on one it
// refuses.
func Ref(t testing.TB, s string) store.Ref {
	t.Helper()
	r, err := store.ParseRef(s)
	if err != nil {
		t.Fatalf("store reference %q: %v", s, err)
	}
	return r
}

// Open opens the store s names with opt, closed when the test ends; the
// test fails when it cannot be opened.
func Open(t testing.TB, s string, opt store.Options) *store.DB {
	t.Helper()
	db, err := Ref(t, s).Open(context.Background(), opt)
	if err != nil {
		t.Fatalf("open store %s: %v", s, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
