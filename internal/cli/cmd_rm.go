package cli

import (
	"context"

	"github.com/sectax/sectax/internal/report"

	"github.com/spf13/cobra"
)

func newRmCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:  "rm RUN",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runRm(cmd.Context(), g, args[0]) },
	}
	addFormatFlag(cmd, report.StoreChangeFormats.List())
	return cmd
}

func runRm(ctx context.Context, g *Globals, ref string) error {
	db, id, err := resolveOne(ctx, g, ref)
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
}

// storeChange prints what rm, import or push did (nothing as text under
// --quiet, but for push).
func (g *Globals) storeChange(c *report.StoreChange) error {
	if g.Quiet && g.Format == "text" && c.Command != "push" {
		return nil
	}
	return render(g, report.StoreChangeFormats, c, report.Options{})
}
