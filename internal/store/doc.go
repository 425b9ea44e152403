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
// (campaign.go), and reads and writes the sectax.run/v1 documents of
// export and import, checked before anything is written (transfer.go).
//
// An SQLite database is identified by its application_id and versioned by
// user_version; migrations are embedded and only move forward. A file that
// is not an SQLite database, or an SQLite database that belongs to another
// program, is refused with a clear error and never written to.
//
// sectax run uses it like this:
//
//	release, err := store.AcquireRunLock(dbPath) // one measurer at a time;
//	if err != nil { ... }                         // *LockedError names the holder's pid
//	defer release()
//	db, err := store.Open(ctx, dbPath, store.Options{Create: true})
//	if err != nil { ... }
//	defer db.Close()
//	r, err := measure.Measure(ctx, pl, meta, store.NewRecorder(ctx, db, say))
package store
