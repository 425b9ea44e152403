package lab

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/adaptive"
	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/sides"
)

// adaptRound is adaptive repetition after the boots so far: each
// configuration not yet stopped is compared with on (per kernel, the
// widest interval counts), and the next round boots on and those whose
// interval is still wider than the target, if it fits in the budget. The
// round's repetitions per boot and its boots a configuration are sized
// from the variance components and the costs measured so far (Allocate),
// and said. It returns the round (empty: done) and a line for each
// configuration that stopped, saying what stopped it.
func (s *session) adaptRound(ctx context.Context, kernels []string, stopped map[string]bool, booted map[string]int,
	elapsed, perBoot time.Duration, round int) ([]Step, []string, error) {
	load := sides.OnDB(s.db)
	var running []bootconfig.Config
	for _, c := range s.configs[1:] {
		if !stopped[c.Name] {
			running = append(running, c)
		}
	}
	boots := map[string]int{}
	for name, n := range booted {
		boots[name] = n / len(kernels)
	}
	reports := map[string][]*compare.Report{}
	widths := map[string]float64{}
	if len(running) > 0 {
		for _, k := range kernels {
			// One comparison per kernel: on first, then every configuration
			// still running.
			group := []compare.Side{}
			for _, c := range append([]bootconfig.Config{s.configs[0]}, running...) {
				side, err := load.Side(ctx, Label(s.req.Prefix, k, c.Name))
				if err != nil {
					return nil, nil, err
				}
				group = append(group, side)
			}
			cmp, err := compare.CompareSides(group, compare.Options{})
			if err != nil {
				return nil, nil, err
			}
			for i, c := range running {
				rep := cmp.Comparisons[i]
				reports[c.Name] = append(reports[c.Name], rep)
				widths[c.Name] = math.Max(widths[c.Name], adaptive.BootWidth(rep))
			}
		}
	}
	// The sizing is of the configurations that go on.
	var wide []*compare.Report
	for _, c := range running {
		if widths[c.Name] > s.req.Adaptive.TargetPct {
			wide = append(wide, reports[c.Name]...)
		}
	}
	alloc, sized := adaptive.Allocate(wide, s.req.Adaptive.TargetPct, adaptive.LevelCosts(s.spent, s.runs), s.repetitions())
	if sized {
		if c := alloc.Costs.PerBoot(alloc.Runs); c > 0 {
			perBoot = c
		}
	}
	more, notes, err := s.req.Adaptive.Decide(s.configs[0].Name, running, func(c bootconfig.Config) (float64, error) {
		return widths[c.Name], nil
	}, boots, elapsed, perBoot*time.Duration(len(kernels)))
	if err != nil {
		return nil, nil, err
	}
	for _, c := range running {
		if !slices.Contains(more, c.Name) {
			stopped[c.Name] = true
		}
	}
	for _, line := range notes {
		s.say("%s", line)
	}
	if len(more) == 0 {
		return nil, notes, nil
	}
	sel := []bootconfig.Config{s.configs[0]}
	for _, name := range more {
		c, _ := bootconfig.Find(s.configs, name)
		sel = append(sel, c)
	}
	k := 1
	if sized {
		k = alloc.RoundBoots(len(sel)*len(kernels), s.req.Adaptive.Budget-elapsed, perBoot)
		s.req.Measure.Repetitions = alloc.Runs
		s.say("%s", alloc)
	}
	s.say("adaptive: round %d boots %s again, %d boot(s) each (interval wider than ±%g points)", round, strings.Join(append([]string{s.configs[0].Name}, more...), ", "), k, s.req.Adaptive.TargetPct)
	steps := Schedule(s.req.Prefix, kernels, sel, k, s.seed+int64(round))
	for i := range steps {
		steps[i].Round = round
	}
	return steps, notes, nil
}

// repetitions is the measured repetitions per boot of the latest run (0:
// none yet).
func (s *session) repetitions() int {
	if len(s.runs) == 0 {
		return s.req.Measure.Repetitions
	}
	return s.runs[len(s.runs)-1].Repetitions
}
