package cli

import (
	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/report"
)

func newBaselinesCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:  "baselines",
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
