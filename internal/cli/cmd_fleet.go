package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/fleet"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/store"
)

func newFleetCmd(g *Globals) *cobra.Command {
	var on, off, format string
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "The tax across many machines, per CPU model × kernel",
		Long: `Summarise the tax across every host in the database (a shared PostgreSQL store
usually: --db postgres://…), per CPU model × kernel release × WSL or not: how
many hosts have a verified on/off pair (runs labelled --on that booted with
mitigations on, runs labelled --off that booted with mitigations=off), and per
workload the median tax across those hosts with its confidence interval. Each
host's tax comes from its own runs, as 'sectax compare' computes it: the host
is the unit, so one noisy machine does not dominate.`,
		Example: `  SECTAX_DB=postgres://sectax@db/sectax sectax fleet
  sectax fleet --format md -o fleet.md
  sectax fleet --format html -o fleet.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := report.FleetFormats.Check(format); err != nil {
				return err
			}
			ctx := cmd.Context()
			db, err := openStore(ctx, g, false)
			if store.IsNoDatabase(err) {
				nothingStored(g, "store runs with `sectax run --label on|off` or `sectax import`, or pass --db")
				return nil
			}
			if err != nil {
				return err
			}
			defer db.Close()
			all, err := db.List(ctx)
			if err != nil {
				return err
			}
			var runs []fleet.Run
			for _, s := range all {
				if s.Label != on && s.Label != off {
					continue
				}
				r, err := db.Get(ctx, s.ID)
				var bad *store.RowError
				if errors.As(err, &bad) {
					g.notice("%s; the run was left out", bad) // one bad row does not stop the fleet
					continue
				}
				if err != nil {
					return err
				}
				runs = append(runs, fleet.Run{Run: r, Env: s.Env})
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			return finish(report.FleetFormats.Render(w, format, fleet.Build(runs, on, off), report.Options{}))
		},
	}
	cmd.Flags().StringVar(&on, "on", "on", "label of the runs with mitigations on")
	cmd.Flags().StringVar(&off, "off", "off", "label of the runs with mitigations=off")
	cmd.Flags().StringVar(&format, "format", "text", "output format: "+strings.Join(report.FleetFormats.Names(), "|"))
	return cmd
}
