package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

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
		Use:   "compare A B [C ...]",
		Short: "Compare runs, labels or baselines: medians with CIs, change, speedup, p-value",
		Long: `Compare side A (usually mitigations on) with side B (usually off), or
with each of B, C, ...: A is the baseline, as benchstat's first column.

Each side is a run id (or a unique prefix of one), a label (every run with
that label; when the label spans two or more boots, one median per boot is a
sample), or baseline:NAME (published figures, see 'sectax baselines').

One table for any number of sides: a row per workload both sides ran with
the same parameters and metric, a column per side with its median and 95%
confidence interval, and for each side but A its change against A: the
change in percent ("~" when the p-value, adjusted with Holm–Bonferroni over
every side's primary metrics together, is above --alpha), the interval of
the change and the adjusted p. The first line is each side's conclusion: no
mitigation changed, no significant difference, or how much better it is
overall. Then, per side: what this means (workloads ranked, protections
given up, what the negative controls can vouch for), kernel command-line
tokens added and removed, vulnerabilities whose state changed, and
confounders (anything else that differs, such as the kernel or the
microcode). A negative control (ctl-*) that moved flags the comparison as
confounded.

Formats: text (terminal), md (Markdown for an issue or a blog post), json
(one sectax.compare/v3 document: each side's report against A), csv (one row
per side, workload and metric, with the speedup, the raw p and n of every
test), benchfmt (the Go benchmark format: benchstat -col label shows a
column per side), html (one self-contained page with charts, every test,
the environments side by side, the vulnerability changes explained and
"what this means"; it loads nothing from the network and prints well).

--png DIR writes the same charts as PNG files (for a blog post); the
Markdown report then links them.`,
		Example: `  sectax compare on off
  sectax compare on off --format md -o tax.md
  sectax compare on off --format html -o tax.html
  sectax compare on off --format md -o post/tax.md --png post/charts
  sectax compare baseline:study-wsl3-on baseline:study-wsl3-off
  sectax compare baseline:study-wsl2-on baseline:study-wsl2-off baseline:study-wsl3-on baseline:study-wsl3-off`,
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
	var images []report.Image
	for _, c := range charts {
		data, err := c.PNG()
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, c.Name+".png")
		if err := g.writeInFolder(dir, c.Name+".png", data); err != nil {
			return nil, err
		}
		link := path
		if g.Output != "" && g.Output != "-" {
			if rel, err := filepath.Rel(filepath.Dir(g.Output), path); err == nil {
				link = rel
			}
		}
		images = append(images, report.Image{Title: c.Title, Alt: c.Alt, Path: filepath.ToSlash(link)})
	}
	return images, nil
}
