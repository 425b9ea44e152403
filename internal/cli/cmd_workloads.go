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
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorkloads(g) },
	}
	addFormatFlag(cmd, report.WorkloadsFormats.List())
	return cmd
}

func runWorkloads(g *Globals) error {
	return render(g, report.WorkloadsFormats, g.deps.Registry.All(), report.Options{})
}
