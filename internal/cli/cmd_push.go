package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
)

func newPushCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:  "push",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPush(cmd.Context(), g) },
	}
	addFormatFlag(cmd, report.StoreChangeFormats.List())
	return cmd
}

func runPush(ctx context.Context, g *Globals) error {
	ref, err := g.ref()
	if err != nil {
		return err
	}
	if !ref.IsURL() {
		return usagef("sectax push moves spooled runs to a PostgreSQL store: pass --db postgres://… or set SECTAX_DB")
	}
	c := report.NewStoreChange("push", ref.String())
	p, err := ref.PushSpool(ctx, g.storeOptions())
	if err != nil {
		return err
	}
	c.Pushed = p.Moved
	for _, id := range p.Measuring {
		c.Skipped = append(c.Skipped, report.Skipped{ID: id, Why: "being measured: pushed when it ends"})
	}
	for _, id := range p.Held {
		c.Skipped = append(c.Skipped, report.Skipped{ID: id, Why: "already stored: left the spool"})
	}
	if p.Nothing != "" {
		c.Notes = append(c.Notes, p.Nothing)
	}
	return g.storeChange(c)
}
