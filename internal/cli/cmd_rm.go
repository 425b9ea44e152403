package cli

import (
	"github.com/sectax/sectax/internal/report"

	"github.com/spf13/cobra"
)

func newRmCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rm RUN",
		Short: "Delete one stored run and its samples",
		Long: `Delete one stored run and all its samples. RUN is a run id, a unique prefix
of one, or a label that holds a single run (a label of several runs is
refused: name the run). A run still being measured (marked running while
its sectax holds the store's measuring lock) is refused: wait for it, or
stop it; one whose measurer is gone may be removed. 'sectax export RUN -o
FILE' first keeps a copy. --format json writes a sectax.store-change/v1
document (docs/format.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.StoreChangeFormats.Check(g.Format); err != nil {
				return err
			}
			ctx := cmd.Context()
			db, id, err := resolveOne(ctx, g, args[0])
			if err != nil {
				return err
			}
			defer db.Close()
			if err := db.CheckIdle(ctx, id); err != nil {
				return err
			}
			if err := db.Delete(ctx, id); err != nil {
				return err
			}
			c := report.NewStoreChange("rm", g.dbShown())
			c.Removed = append(c.Removed, id)
			return g.storeChange(c)
		},
	}
	addFormatFlag(cmd, g, "text", report.StoreChangeFormats.Names()...)
	return cmd
}

// storeChange prints what rm, import or push did (nothing as text under
// --quiet, but for push).
func (g *Globals) storeChange(c *report.StoreChange) error {
	if g.Quiet && g.Format == "text" && c.Command != "push" {
		return nil
	}
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	return finish(report.StoreChangeFormats.Render(w, g.Format, c, report.Options{}))
}
