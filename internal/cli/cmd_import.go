package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

func newImportCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:  "import FILE...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runImport(cmd.Context(), g, args) },
	}
	addFormatFlag(cmd, report.StoreChangeFormats.List())
	return cmd
}

func runImport(ctx context.Context, g *Globals, files []string) error {
	if _, err := g.ref(); err != nil {
		return err
	}
	docs, err := store.ReadFiles(ctx, files)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, g, true)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.Import(ctx, docs)
	var fe *run.FieldError
	if errors.As(err, &fe) {
		return exit.Wrap(exit.Usage, err)
	}
	if err != nil {
		return err
	}
	c := report.NewStoreChange("import", g.dbShown())
	c.Imported, c.Replaced = append(c.Imported, res.Imported...), append(c.Replaced, res.Replaced...)
	for _, id := range res.Skipped {
		g.notice("skipped run %s: already stored", id)
		c.Skipped = append(c.Skipped, report.Skipped{ID: id, Why: "already stored"})
	}
	for _, id := range res.Replaced {
		g.notice("replaced run %s, stored cut short, with the finished run of the file", id)
	}
	return g.storeChange(c)
}
