package cli

import (
	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
)

func newWorkloadsCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workloads",
		Short: "List the workloads, their parameters, defaults and what each stresses",
		Long: `List every workload sectax can run: its parameters with their values in the
quick, standard and study suites, the accepted range, its metrics (the first
is the primary one) and which kernel paths, and so which mitigations, it taxes.

Override a parameter in 'sectax run' with --param ID.KEY=VALUE.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := report.WorkloadsFormats.Check(g.Format); err != nil {
				return err
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			ws := g.deps.Registry.All()
			return finish(report.WorkloadsFormats.Render(w, g.Format, ws, report.Options{}))
		},
	}
	addFormatFlag(cmd, g, "text", report.WorkloadsFormats.Names()...)
	return cmd
}
