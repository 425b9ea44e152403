package cli

import (
	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/report"
)

func newBaselinesCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baselines",
		Short: "List the built-in published datasets (compare with baseline:NAME)",
		Long: `List the published datasets built into sectax, each with its source, its
environment and its figures. Compare with them as baseline:NAME:

  sectax compare baseline:study-wsl3-on baseline:study-wsl3-off
  sectax compare on baseline:study-wsl3-on

Their values are single published figures: no samples, so no confidence
interval and no significance test. Figures marked ≈ are approximate or
derived (the note says how).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBaselines(g) },
	}
	addFormatFlag(cmd, report.BaselinesFormats.List())
	return cmd
}

func runBaselines(g *Globals) error {
	all, err := baseline.All()
	if err != nil {
		return err
	}
	return render(g, report.BaselinesFormats, all, report.Options{})
}
