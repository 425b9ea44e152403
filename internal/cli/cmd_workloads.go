package cli

import (
	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
)

func newWorkloadsCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:  "workloads",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorkloads(g) },
	}
	addFormatFlag(cmd, report.WorkloadsFormats.List())
	return cmd
}

func runWorkloads(g *Globals) error {
	return render(g, report.WorkloadsFormats, g.deps.Registry.All(), report.Options{})
}
