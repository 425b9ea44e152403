package cli

import (
	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/store"
)

func newExportCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "export RUN...",
		Short: "Write stored runs as sectax.run/v1 JSON documents",
		Long: `Write stored runs as sectax.run/v1 JSON documents, one after another, to
standard output or -o FILE. Each RUN is a run id, a unique prefix, or a label
(every run with it). 'sectax import' reads the file back, on this machine or
another.`,
		Example: `  sectax export on off -o runs.json`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			db, err := openStore(ctx, g, false)
			if err != nil {
				if store.IsNoDatabase(err) {
					return noDatabase(g, args[0])
				}
				return err
			}
			defer db.Close()
			var docs []store.Doc
			seen := map[string]bool{}
			for _, ref := range args {
				ids, _, err := db.Resolve(ctx, ref)
				if err != nil {
					return refError(err)
				}
				for _, id := range ids {
					if seen[id] {
						continue
					}
					seen[id] = true
					doc, err := db.Doc(ctx, id)
					if err != nil {
						return err
					}
					docs = append(docs, doc)
				}
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			return finish(store.WriteDocs(w, docs))
		},
	}
}
