package adaptive

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/measure"
)

// Reasons an adaptive repetition stopped adding boots to a configuration.
const (
	// StopTarget: the interval of its difference to on is as narrow as
	// the target.
	StopTarget = "target"
	// StopBudget: another round would not fit in the budget of time.
	StopBudget = "budget"
)

// Policy is adaptive repetition: after the planned boots, keep adding
// rounds (on and every configuration not yet narrow enough, one boot each)
// until the interval of each configuration's difference to on is at most
// TargetPct wide either side, or another round would overrun Budget.
type Policy struct {
	// TargetPct is the half-width of the interval of the change, in
	// percentage points (2: the change is known within ±2 points).
	TargetPct float64
	// Budget bounds the lab's whole wall time, planned boots included.
	Budget time.Duration
}

// Check refuses a target or a budget that cannot work.
func (a Policy) Check() error {
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
func (a Policy) Round(widths map[string]float64, elapsed, perBoot time.Duration) (more []string, stopped map[string]string) {
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
func (a Policy) Decide(base string, running []bootconfig.Config, width func(bootconfig.Config) (float64, error),
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
func (a Policy) note(name, base string, width float64, n int, why string, elapsed time.Duration) string {
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

// MaxBudget bounds --budget of adaptive repetition.
const MaxBudget = 31 * 24 * time.Hour
