package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/store"
)

func newImportCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE...",
		Short: "Store runs from sectax.run/v1 JSON documents",
		Long: `Store the runs of sectax.run/v1 JSON documents ('sectax export' or
'sectax run --format json' output; a file may hold one document, several one
after another, or a JSON array). Every document of every file is validated
first and then all are written in one transaction: a malformed file writes
nothing. A run whose id is already stored is skipped with a notice.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var docs []store.Doc
			from := map[string]string{}
			for _, file := range args {
				data, err := os.ReadFile(file)
				if err != nil {
					return usagef("cannot read %s: %v", file, err)
				}
				ds, err := store.Decode(file, data)
				if err != nil {
					return usageError{err}
				}
				for _, d := range ds {
					if prev, dup := from[d.Run.ID]; dup {
						return usagef("%s: run %s is also in %s; import each run once", file, d.Run.ID, prev)
					}
					from[d.Run.ID] = file
				}
				docs = append(docs, ds...)
			}
			ctx := cmd.Context()
			db, err := openStore(ctx, g, true)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := db.Import(ctx, docs)
			if err != nil {
				return err
			}
			for _, id := range res.Skipped {
				g.notice("skipped run %s: already stored", id)
			}
			if !g.Quiet {
				fmt.Fprintf(g.stdout, "imported %d run(s), skipped %d\n", len(res.Imported), len(res.Skipped))
			}
			return nil
		},
	}
}
