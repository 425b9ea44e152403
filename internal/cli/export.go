package cli

import (
	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/store"
)

func newExportCmd(g *Globals) *cobra.Command {
	// Its own variable: every command binds --format to g.Format with its
	// own default, and the last one registered would win.
	var format string
	cmd := &cobra.Command{
		Use:   "export RUN...",
		Short: "Write stored runs as sectax.run/v1 JSON documents",
		Long: `Write stored runs as sectax.run/v1 JSON documents (docs/format.md) to
standard output or -o FILE: a JSON array of documents (--format json, the
default; one JSON value that any JSON parser reads), or one compact document
per line (--format jsonl, JSON Lines). Each RUN is a run id, a unique prefix,
or a label (every run with it). 'sectax import' reads either back, on this
machine or another.`,
		Example: `  sectax export on off -o runs.json
  sectax export on --format jsonl | jq -c '.results[].workload'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "json" && format != "jsonl" {
				return usagef("--format %q is not accepted (accepted: json, jsonl)", format)
			}
			ctx := cmd.Context()
			for _, ref := range args {
				if ref == "" {
					return emptyRef()
				}
			}
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
			return finish(store.WriteDocs(w, docs, store.Format(format)))
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "output format: json (an array of documents)|jsonl (one document per line)")
	return cmd
}
