package lab

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/sides"
)

// Reasons an adaptive repetition stopped adding boots to a configuration.
const (
	// StopTarget: the interval of its difference to on is as narrow as
	// the target.
	StopTarget = "target"
	// StopBudget: another round would not fit in the budget of time.
	StopBudget = "budget"
)

// Adaptive is adaptive repetition: after the planned boots, keep adding
// rounds (on and every configuration not yet narrow enough, one boot each)
// until the interval of each configuration's difference to on is at most
// TargetPct wide either side, or another round would overrun Budget.
type Adaptive struct {
	// TargetPct is the half-width of the interval of the change, in
	// percentage points (2: the change is known within ±2 points).
	TargetPct float64
	// Budget bounds the lab's whole wall time, planned boots included.
	Budget time.Duration
}

// Check refuses a target or a budget that cannot work.
func (a Adaptive) Check() error {
	if !(a.TargetPct > 0) || math.IsInf(a.TargetPct, 0) {
		return fmt.Errorf("--target-ci %v: give a half-width in percentage points above 0, such as 2", a.TargetPct)
	}
	if a.Budget > MaxBudget {
		return fmt.Errorf("--budget %v: at most %v", a.Budget, MaxBudget)
	}
	if a.Budget <= 0 {
		return fmt.Errorf("--target-ci needs --budget, the longest the lab may run in all (such as 2h): without one, a difference that never narrows would boot forever")
	}
	return nil
}

// Round decides the next round from the widths of the configurations
// still running (their widest interval half-width against on, +Inf when
// one has no interval yet), the time spent so far and the mean time of a
// boot: the configurations to boot again, in name order, and for the
// others why they stopped. A round boots on besides them, so it costs
// len(more)+1 boots (times kernels, which perBoot may include).
func (a Adaptive) Round(widths map[string]float64, elapsed, perBoot time.Duration) (more []string, stopped map[string]string) {
	stopped = map[string]string{}
	for name, w := range widths {
		if w <= a.TargetPct {
			stopped[name] = StopTarget
		} else {
			more = append(more, name)
		}
	}
	sort.Strings(more)
	if len(more) == 0 {
		return nil, stopped
	}
	if elapsed+time.Duration(len(more)+1)*perBoot > a.Budget {
		for _, name := range more {
			stopped[name] = StopBudget
		}
		return nil, stopped
	}
	return more, stopped
}

// BootWidth is how precisely rep knows its differences with the boot as
// the unit (+Inf while a side holds one boot: its repetitions tell nothing
// of boot-to-boot variation).
func BootWidth(rep *compare.Report) float64 {
	if rep.A.Unit != "boot" || rep.B.Unit != "boot" {
		return math.Inf(1)
	}
	return rep.WidestIntervalPct()
}

// Decide is one decision of adaptive repetition, the same for a lab and a
// campaign: each configuration still running is measured against base
// (width: its interval half-width, BootWidth), and Round picks those to
// boot again. It returns them and, for each configuration that stopped, a
// line saying after how many boots (boots[name]) and why.
func (a Adaptive) Decide(base string, running []bootconfig.Config, width func(bootconfig.Config) (float64, error),
	boots map[string]int, elapsed, perBoot time.Duration) (more, notes []string, err error) {
	widths := map[string]float64{}
	for _, c := range running {
		if widths[c.Name], err = width(c); err != nil {
			return nil, nil, err
		}
	}
	more, stopped := a.Round(widths, elapsed, perBoot)
	for _, c := range running {
		if why, ok := stopped[c.Name]; ok {
			notes = append(notes, a.note(c.Name, base, widths[c.Name], boots[c.Name], why, elapsed))
		}
	}
	return more, notes, nil
}

// note says what stopped adaptive repetition of a configuration.
func (a Adaptive) note(name, base string, width float64, n int, why string, elapsed time.Duration) string {
	w := "no interval with the boot as the unit yet"
	if !math.IsInf(width, 1) {
		w = fmt.Sprintf("interval ±%.1f points", width)
		if width >= 10 {
			w = fmt.Sprintf("interval ±%.0f points", width)
		}
	}
	boots := "boots"
	if n == 1 {
		boots = "boot"
	}
	line := fmt.Sprintf("adaptive: %s against %s: %s after %d %s: ", name, base, w, n, boots)
	if why == StopTarget {
		return line + fmt.Sprintf("stopped by the target (--target-ci %g)", a.TargetPct)
	}
	return line + fmt.Sprintf("stopped by the budget (--budget %s, %s spent)", a.Budget, measure.Clock(elapsed))
}

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
				widths[c.Name] = math.Max(widths[c.Name], BootWidth(rep))
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
	alloc, sized := Allocate(wide, s.req.Adaptive.TargetPct, LevelCosts(s.spent, s.runs), s.repetitions())
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
