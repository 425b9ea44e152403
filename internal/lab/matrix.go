package lab

import (
	"context"
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sides"
)

// Matrix is the result of a lab: the headline (the TCG warning, mixed
// accelerators, the matrix's size, what stopped adaptive repetition) and
// the comparisons, per kernel each configuration against on, per
// configuration each kernel against the first.
type Matrix struct {
	Headline    []string
	Comparisons []Comparison
}

// Comparison is one cell of the lab matrix: configuration B against A
// on one kernel, or one configuration across two kernels.
type Comparison struct {
	// Group titles the block ("tax against on, kernel 6.1.0-57-amd64").
	Group string
	// A and B name the two sides in the table ("on", "off").
	A, B   string
	Report *compare.Report
}

// MakeMatrix compares the stored runs of a plan pairwise (labels
// PREFIX-KERNEL-CONFIG, loaded through load); notes follow the headline.
func MakeMatrix(ctx context.Context, load *sides.Loader, prefix string, kernels []string, configs []bootconfig.Config, notes ...string) (*Matrix, error) {
	loaded := map[string]compare.Side{}
	side := func(label string) (compare.Side, error) {
		if s, ok := loaded[label]; ok {
			return s, nil
		}
		s, err := load.Side(ctx, label)
		if err == nil {
			loaded[label] = s
		}
		return s, err
	}
	m := &Matrix{}
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
		m.Comparisons = append(m.Comparisons, Comparison{Group: group, A: an, B: bn, Report: rep})
		return nil
	}
	for _, k := range kernels {
		for _, c := range configs {
			if c.Name == "on" {
				continue
			}
			if err := add("tax against on, kernel "+k, "on", c.Name, Label(prefix, k, "on"), Label(prefix, k, c.Name)); err != nil {
				return nil, err
			}
		}
	}
	if len(kernels) > 1 {
		for _, c := range configs {
			for _, k := range kernels[1:] {
				if err := add("change between kernels, configuration "+c.Name, kernels[0], k,
					Label(prefix, kernels[0], c.Name), Label(prefix, k, c.Name)); err != nil {
					return nil, err
				}
			}
		}
	}
	var runs []*run.Run
	for _, s := range loaded {
		runs = append(runs, s.Runs...)
	}
	accels, tcg, mixed := compare.Accelerators(runs)
	if tcg {
		m.Headline = append(m.Headline, compare.TCGHeadline)
	}
	if mixed {
		m.Headline = append(m.Headline, fmt.Sprintf("warning: the runs mix accelerators (%s): their timings cannot be compared", strings.Join(accels, ", ")))
	}
	m.Headline = append(m.Headline, fmt.Sprintf("lab matrix: %d kernel(s) × %d configurations, accelerator %s", len(kernels), len(configs), strings.Join(accels, ", ")))
	m.Headline = append(m.Headline, notes...)
	return m, nil
}
