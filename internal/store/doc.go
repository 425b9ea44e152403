// Package store keeps sectax's runs and campaigns, on one of two engines
// behind the same tables, migrations and queries (dialect.go): an SQLite
// file (modernc.org/sqlite, pure Go, so the binary stays static), or a
// shared PostgreSQL database for a team's machines (postgres.go), whose
// runs are measured into a local SQLite spool and pushed when they end
// (recorder.go), so that a network drop loses nothing. A run is inserted
// when it starts, each sample as it completes, and its final state at the
// end, so that a crash or Ctrl-C loses nothing that finished; a run the
// store cannot take is spilled to a file beside it (spill.go).
//
// It also resolves what a user names (a run id, a prefix, a label, side
// selectors: resolve.go, select.go), holds the campaigns' state
// (campaign.go), and imports and exports sectax.run/v1 documents (whose
// format is run's: run.Decode, run.WriteDocs), checked before anything is
// written (transfer.go).
//
// An SQLite database is identified by its application_id and versioned by
// user_version; migrations are embedded and only move forward. A file that
// is not an SQLite database, or an SQLite database that belongs to another
// program, is refused with a clear error and never written to.
//
// A store is named by a Ref, parsed once from --db (ParseRef). sectax run
// uses it like this:
//
//	ref, err := store.ParseRef(g.DB) // a file's absolute path or a postgres:// URL
//	if err != nil { ... }            // a usage error that does not echo a password
//	rec, done, err := ref.OpenRecorder(ctx, label, store.Options{Out: p}) // the measuring
//	if err != nil { ... }            // lock, then the store; *LockedError names the holder
//	defer done()
//	// ... measure with rec as the session's Sink; rec.Saved(r) says where the run is.
package store
