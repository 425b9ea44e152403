package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

// labMatrix compares the stored runs of a plan pairwise with compare's
// public API and prints the matrix: per kernel each configuration against
// on, per configuration each kernel against the first; notes (what
// stopped adaptive repetition) follow its headline.
func labMatrix(ctx context.Context, g *Globals, db *store.DB, prefix string, kernels []string, configs []config.Config, notes ...string) error {
	sides := map[string]compare.Side{}
	side := func(label string) (compare.Side, error) {
		if s, ok := sides[label]; ok {
			return s, nil
		}
		s, err := sideOf(ctx, g, &db, label)
		if err == nil {
			sides[label] = s
		}
		return s, err
	}
	var cs []report.LabComparison
	add := func(group, an, bn, a, b string) error {
		sa, err := side(a)
		if err != nil {
			return err
		}
		sb, err := side(b)
		if err != nil {
			return err
		}
		rep, err := compare.Compare(sa, sb, compare.Options{})
		if err != nil {
			return fmt.Errorf("compare %s %s: %w", a, b, err)
		}
		cs = append(cs, report.LabComparison{Group: group, A: an, B: bn, Report: rep})
		return nil
	}
	for _, k := range kernels {
		for _, c := range configs {
			if c.Name == "on" {
				continue
			}
			if err := add("tax against on, kernel "+k, "on", c.Name, lab.Label(prefix, k, "on"), lab.Label(prefix, k, c.Name)); err != nil {
				return err
			}
		}
	}
	if len(kernels) > 1 {
		for _, c := range configs {
			for _, k := range kernels[1:] {
				if err := add("change between kernels, configuration "+c.Name, kernels[0], k,
					lab.Label(prefix, kernels[0], c.Name), lab.Label(prefix, k, c.Name)); err != nil {
					return err
				}
			}
		}
	}
	var runs []*run.Run
	for _, s := range sides {
		runs = append(runs, s.Runs...)
	}
	var headline []string
	accels, tcg, mixed := compare.Accelerators(runs)
	if tcg {
		headline = append(headline, compare.TCGHeadline)
	}
	if mixed {
		headline = append(headline, fmt.Sprintf("warning: the runs mix accelerators (%s): their timings cannot be compared", strings.Join(accels, ", ")))
	}
	headline = append(headline, fmt.Sprintf("lab matrix: %d kernel(s) × %d configurations, accelerator %s", len(kernels), len(configs), strings.Join(accels, ", ")))
	headline = append(headline, notes...)
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	return finish(report.LabMatrix(w, headline, cs))
}
