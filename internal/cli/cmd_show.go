package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

func newShowCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show one stored run: environment, and each metric's median with its 95% CI",
		Long: `Show one stored run. RUN is a run id, a unique prefix of one, or a label that
holds a single run. --format json prints the sectax.run/v1 document, with
every sample.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(g, "text", "json"); err != nil {
				return err
			}
			ctx := cmd.Context()
			db, id, err := resolveOne(ctx, g, args[0])
			if err != nil {
				return err
			}
			defer db.Close()
			doc, err := db.Doc(ctx, id)
			if err != nil {
				return err
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			if g.Format == "json" {
				if err := store.CheckExport(doc); err != nil {
					return finish(err)
				}
				return finish(report.WriteSafeJSON(w, func(w io.Writer) error { return run.WriteDocs(w, []run.Doc{doc}, run.FormatSingle) }))
			}
			env, err := db.Env(ctx, id)
			if err != nil {
				return finish(err)
			}
			return finish(report.ShowText(w, doc.Run, env, g.dbRef.MeasuringPID()))
		},
	}
	addFormatFlag(cmd, g, "text", "text", "json")
	return cmd
}
