package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/stats"
)

// compareOptions are the flags of `sectax compare`.
type compareOptions struct {
	alpha, margin float64
	pngDir        string
}

func newCompareCmd(g *Globals) *cobra.Command {
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use: "compare A B [C ...]",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usagef("compare needs at least two sides, got %d: name a baseline and what to compare with it (sectax compare A B [C ...]; 'sectax list' shows the labels)", len(args))
			}
			return nil // a side given twice: compare.ErrDuplicateSide
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runCompare(cmd.Context(), g, o, args) },
	}
	addFormatFlag(cmd, report.ComparisonFormats.List())
	cmd.Flags().Float64Var(&o.alpha, "alpha", stats.DefaultAlpha, "significance level of the U test")
	addMarginFlag(cmd, &o.margin)
	cmd.Flags().StringVar(&o.pngDir, "png", "", "also write the charts as PNG files into `DIR` (created if missing)")
	return cmd
}

func runCompare(ctx context.Context, g *Globals, o *compareOptions, args []string) error {
	if err := stats.CheckAlpha(o.alpha); err != nil {
		return usagef("--alpha: %v", err)
	}
	if err := checkMargin(o.margin); err != nil {
		return err
	}
	load := g.loader()
	defer load.Close()
	sides, err := load.Sides(ctx, args)
	if err != nil {
		return err
	}
	// Computing and rendering have no cancellation points of their
	// own (a large comparison takes a while, a blocked stdout forever):
	// Ctrl-C ends the command, exit 130, with no -o file written.
	opt := compare.Options{Alpha: o.alpha, MarginPct: o.margin}
	return untilCancelled(ctx, func() error { return writeComparison(ctx, g, sides, opt, o.pngDir) })
}

// addMarginFlag adds --margin, the equivalence margin in percent, to a
// command that compares (compare, campaign report, attribute report,
// decide).
func addMarginFlag(cmd *cobra.Command, margin *float64) {
	cmd.Flags().Float64Var(margin, "margin", stats.DefaultMarginPct,
		"equivalence margin in `PCT`: a change is \"within ±PCT%\" when its (1−2α) interval, 90% at α = 0.05, lies inside it")
}

// checkMargin refuses a --margin outside (0, 100] as a usage error.
func checkMargin(margin float64) error {
	if err := stats.CheckMargin(margin); err != nil {
		return usagef("--margin: %v", err)
	}
	return nil
}

// writeComparison compares the sides, the first as the baseline, and lays
// the comparison out in the --format asked for, to standard output or -o
// (compare and campaign report print through it); with pngDir, the charts
// are also written there as PNG files, and the Markdown report links them.
func writeComparison(ctx context.Context, g *Globals, sides []compare.Side, copt compare.Options, pngDir string) error {
	c, err := compare.CompareSides(sides, copt)
	if err != nil {
		return err
	}
	opt := report.Options{Color: g.colorAllowed()}
	if pngDir != "" {
		charts, err := report.Charts(c)
		if err != nil {
			return err
		}
		if opt.Images, err = writeCharts(ctx, g, charts, pngDir); err != nil {
			return err
		}
	}
	return render(g, report.ComparisonFormats, c, opt)
}

// writeCharts writes charts as PNG files in dir, made if missing: the one
// writer of chart files (compare --png, attribute report --chart). The
// names are sectax's, so each is written new (writeInFolder): nothing
// planted at NAME.png is followed or opened.
func writeCharts(ctx context.Context, g *Globals, charts []report.Chart, dir string) ([]report.Image, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create chart directory %s: %w", dir, err)
	}
	return report.WriteImages(charts, dir, g.Output, func(name string, png []byte) error {
		return g.writeInFolder(dir, name, png)
	})
}
