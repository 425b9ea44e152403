package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/fleet"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/store"
)

func newFleetCmd(g *Globals) *cobra.Command {
	var on, off string
	cmd := &cobra.Command{
		Use:  "fleet",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFleet(cmd.Context(), g, on, off) },
	}
	cmd.Flags().StringVar(&on, "on", "on", "label of the runs with mitigations on")
	cmd.Flags().StringVar(&off, "off", "off", "label of the runs with mitigations=off")
	addFormatFlag(cmd, report.FleetFormats.List())
	return cmd
}

func runFleet(ctx context.Context, g *Globals, on, off string) error {
	db, err := openStore(ctx, g, false)
	if store.IsNoDatabase(err) {
		nothingStored(g, "store runs with `sectax run --label on|off` or `sectax import`, or pass --db")
		return nil
	}
	if err != nil {
		return err
	}
	defer db.Close()
	runs, bad, err := fleet.Load(ctx, db, on, off)
	if err != nil {
		return err
	}
	for _, b := range bad {
		g.notice("%s; the run was left out", b)
	}
	return render(g, report.FleetFormats, fleet.Build(runs, on, off), report.Options{})
}
