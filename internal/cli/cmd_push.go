package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

// A run into a PostgreSQL store is measured into a local SQLite spool
// (spool.db beside the default SQLite store) and moved to PostgreSQL in one
// transaction when it ends. A network drop mid-run therefore loses nothing:
// the run stays in the spool, and `sectax push` moves it later.

// useSpool checks that the PostgreSQL store answers (so that a wrong URL
// fails before measuring) and takes the label, then records the run in
// the spool and pushes it when it ends. A run the spool cannot take is
// spilled to a file as useStore does.
func useSpool(ctx context.Context, g *Globals, label string) (recording, func(), error) {
	spool, err := store.SpoolPath()
	if err != nil {
		return recording{}, nil, err
	}
	pg, err := openStore(ctx, g, true)
	if err != nil {
		return recording{}, nil, err
	}
	err = pg.CheckNewLabel(ctx, label)
	pg.Close()
	if err != nil {
		return recording{}, nil, err
	}
	db, err := store.Open(ctx, spool, store.Options{Create: true})
	if err != nil {
		return recording{}, nil, fmt.Errorf("spool: %w", err)
	}
	sink := store.NewRecorder(ctx, db, g.notice)
	saved := func(r *run.Run) error {
		if sink.Err() != nil {
			file, err := store.Spill(db.Path(), r)
			if err != nil {
				return fmt.Errorf("run %s was not stored in the spool %s (%v), and could not be written to a file either (%v): the results above are all that is left", r.ID, db.Path(), sink.Err(), err)
			}
			return fmt.Errorf("run %s was not stored in the spool %s: %v; it is saved in %s: store it with 'sectax import %s'", r.ID, db.Path(), sink.Err(), file, file)
		}
		// Ctrl-C may have cancelled ctx: the push of what finished must
		// still happen.
		pushed, _, err := pushRuns(context.WithoutCancel(ctx), g, db, []string{r.ID})
		if err != nil || pushed != 1 {
			return fmt.Errorf("run %s is kept in the spool %s: %v; push it with 'sectax push' when the database is reachable", r.ID, spool, err)
		}
		g.notice("stored run %s in %s", r.ID, store.DisplayName(g.DB))
		return nil
	}
	return recording{sink: sink, saved: saved}, func() { db.Close() }, nil
}

// pushRuns moves runs from the spool to the PostgreSQL store of --db
// (store.Push), saying which it already held.
func pushRuns(ctx context.Context, g *Globals, sp *store.DB, ids []string) (int, []string, error) {
	pg, err := openStore(ctx, g, true)
	if err != nil {
		return 0, nil, err
	}
	defer pg.Close()
	n, skipped, err := pg.Push(ctx, sp, ids)
	for _, id := range skipped {
		g.notice("run %s was already stored in %s", id, store.DisplayName(g.DB))
	}
	return n, skipped, err
}

func newPushCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "push",
		Short: "Move runs kept in the local spool to the PostgreSQL store",
		Long: `A run into a PostgreSQL store (--db postgres://… or SECTAX_DB) is measured into
a local spool beside the default SQLite store and moved to PostgreSQL when it
ends. When the database cannot be reached then, the run stays in the spool;
'sectax push' moves every spooled run (except one being measured right now) in
one transaction. A run the store already has is not written twice.
--format json writes a sectax.store-change/v1 document of the runs pushed and
those left (docs/format.md).`,
		Example: `  SECTAX_DB=postgres://sectax@db.example.org/sectax sectax push`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := report.StoreChangeFormats.Check(g.Format); err != nil {
				return err
			}
			if _, err := g.dbPath(); err != nil {
				return err
			}
			if !store.IsURL(g.DB) {
				return usagef("sectax push moves spooled runs to a PostgreSQL store: pass --db postgres://… or set SECTAX_DB")
			}
			ctx := cmd.Context()
			spool, err := store.SpoolPath()
			if err != nil {
				return err
			}
			c := report.NewStoreChange("push", store.DisplayName(g.DB))
			sp, err := store.Open(ctx, spool, store.Options{})
			if errors.Is(err, store.ErrNoDatabase) {
				c.Notes = append(c.Notes, "nothing to push: no spool")
				return g.storeChange(c)
			}
			if err != nil {
				return fmt.Errorf("spool: %w", err)
			}
			defer sp.Close()
			all, err := sp.List(ctx)
			if err != nil {
				return err
			}
			measuring := store.MeasuringPID(g.DB) != 0
			var ids []string
			for _, s := range all {
				if s.Status == run.StatusRunning && measuring {
					g.notice("run %s is being measured; it is pushed when it ends", s.ID)
					c.Skipped = append(c.Skipped, report.Skipped{ID: s.ID, Why: "being measured: pushed when it ends"})
					continue
				}
				ids = append(ids, s.ID)
			}
			if len(ids) == 0 {
				c.Notes = append(c.Notes, "nothing to push: the spool is empty")
				return g.storeChange(c)
			}
			_, held, err := pushRuns(ctx, g, sp, ids)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if slices.Contains(held, id) {
					c.Skipped = append(c.Skipped, report.Skipped{ID: id, Why: "already stored: left the spool"})
				} else {
					c.Pushed = append(c.Pushed, id)
				}
			}
			return g.storeChange(c)
		},
	}
	addFormatFlag(cmd, g, "text", report.StoreChangeFormats.Names()...)
	return cmd
}
