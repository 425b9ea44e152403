package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sides"
)

// Matrix is the result of a lab: the headline (the TCG warning, mixed
// accelerators, the matrix's size, what stopped adaptive repetition) and
// its groups, each one comparison (one Holm family): per kernel every
// configuration against on, per configuration every kernel against the
// first.
type Matrix struct {
	Headline []string
	Groups   []Group
}

// Group is one block of the lab matrix: one comparison of many sides, the
// baseline first, its sides named as the block names them ("on", "off";
// or the kernels).
type Group struct {
	// Title titles the block ("tax against on, kernel 6.1.0-57-amd64").
	Title      string
	Comparison *compare.Comparison
}

// MakeMatrix compares the stored runs of a plan (labels
// PREFIX-KERNEL-CONFIG, loaded through load), one comparison per kernel
// (its configurations, on first) and, with two kernels or more, one per
// configuration (its kernels, the first first); notes follow the headline.
func MakeMatrix(ctx context.Context, load *sides.Loader, prefix string, kernels []string, configs []bootconfig.Config, notes ...string) (*Matrix, error) {
	loaded := map[string]compare.Side{}
	side := func(label, name string) (compare.Side, error) {
		s, ok := loaded[label]
		if !ok {
			var err error
			if s, err = load.Side(ctx, label); err != nil {
				return s, err
			}
			loaded[label] = s
		}
		s.Ref = name // the block names its sides
		return s, nil
	}
	m := &Matrix{}
	add := func(title string, labels, names []string) error {
		var group []compare.Side
		for i := range labels {
			s, err := side(labels[i], names[i])
			if err != nil {
				return err
			}
			group = append(group, s)
		}
		if len(group) < 2 {
			return nil
		}
		c, err := compare.CompareSides(group, compare.Options{})
		if err != nil {
			return fmt.Errorf("compare %s: %w", strings.Join(labels, " "), err)
		}
		m.Groups = append(m.Groups, Group{Title: title, Comparison: c})
		return nil
	}
	// on first, then the other configurations in the plan's order.
	ordered := slices.Clone(configs)
	if i := slices.IndexFunc(ordered, func(c bootconfig.Config) bool { return c.Name == "on" }); i > 0 {
		on := ordered[i]
		ordered = append([]bootconfig.Config{on}, slices.Delete(ordered, i, i+1)...)
	}
	for _, k := range kernels {
		var labels, names []string
		for _, c := range ordered {
			labels, names = append(labels, Label(prefix, k, c.Name)), append(names, c.Name)
		}
		if err := add("tax against on, kernel "+k, labels, names); err != nil {
			return nil, err
		}
	}
	if len(kernels) > 1 {
		for _, c := range ordered {
			var labels []string
			for _, k := range kernels {
				labels = append(labels, Label(prefix, k, c.Name))
			}
			if err := add("change between kernels, configuration "+c.Name, labels, kernels); err != nil {
				return nil, err
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
