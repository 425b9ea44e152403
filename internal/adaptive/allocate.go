package adaptive

import (
	"fmt"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// The bounds on the repetitions per boot adaptive repetition chooses:
// at least MinRunsPerBoot (two repetitions a boot keep the within-boot
// variance measurable), at most MaxRunsFactor times the planned boots'
// repetitions and never under MaxRunsFloor (estimates from a few boots
// are rough: the count moves in bounded steps), nor above
// plan.MaxRepetitions.
const (
	MinRunsPerBoot = 2
	MaxRunsFactor  = 3
	MaxRunsFloor   = 10
	// MinBootsForInterval is the fewest boots a side before compare has
	// an interval with the boot as the unit.
	MinBootsForInterval = 4
)

// Costs are the measured costs of the two levels of a lab or a campaign:
// a boot (booting, verifying, warming up, storing: everything but the
// measured repetitions) and one measured repetition of the suite (every
// workload once).
type Costs struct {
	Boot, Rep time.Duration
}

// LevelCosts are the costs of the boots so far from their wall time in
// all (wall) and their runs: a repetition costs the runs' measuring time
// over their repetitions (warm-ups included, each a pass of every
// workload), a boot the rest of the wall time per boot. Zero when nothing
// is known.
func LevelCosts(wall time.Duration, runs []*run.Run) Costs {
	var measuring time.Duration
	passes, measured := 0, 0
	for _, r := range runs {
		took := r.Finished.Sub(r.Started)
		if took <= 0 || r.Repetitions <= 0 {
			continue
		}
		measuring += took
		passes += r.Repetitions + max(r.Warmup, 0)
		measured += r.Repetitions
	}
	if passes == 0 || len(runs) == 0 {
		return Costs{}
	}
	rep := measuring / time.Duration(passes)
	boot := (wall - rep*time.Duration(measured)) / time.Duration(len(runs))
	return Costs{Boot: max(boot, 0), Rep: rep}
}

// PerBoot is what one boot of runs repetitions costs.
func (c Costs) PerBoot(runs int) time.Duration { return c.Boot + time.Duration(runs)*c.Rep }

// Allocation is how adaptive repetition sizes the next boots, after
// Kalibera & Jones ("Rigorous benchmarking in reasonable time", ISMM
// 2013): from the variance components of the workload that needs the
// most boots (its primary metric's, both sides pooled, relative to the
// mean) and the costs of a boot and of a repetition, the repetitions per
// boot that make a boot's time count most (stats.Levels.OptimalRepetitions)
// and the boots a side the target then needs (stats.BootsNeeded, the
// normal approximation of the change's interval; at least
// MinBootsForInterval).
type Allocation struct {
	// Workload is the workload that needs the most boots; Against the
	// configuration it was compared with on in.
	Workload, Against string
	// Share is the boot-to-boot part of its variance (0 to 1); Clamped
	// says a side's between-boot estimate came out negative and was taken
	// as 0.
	Share   float64
	Clamped bool
	// Runs is the repetitions per boot of the next boots; Boots the boots
	// a side the target needs at Runs; Have the boots a side so far.
	Runs, Boots, Have int
	Costs             Costs
}

// Allocate sizes the next boots from the comparisons of each
// configuration still running against on (reps), the target half-width
// in percentage points, the measured costs and the repetitions per boot
// so far (base: the step is bounded by it, and kept when no cost is
// measured). ok is false when no
// workload's variance can be split yet (fewer than two boots a side, or
// one repetition a boot): the next boots keep their count.
func Allocate(reps []*compare.Report, targetPct float64, c Costs, base int) (a Allocation, ok bool) {
	hi := min(max(MaxRunsFloor, MaxRunsFactor*base), plan.MaxRepetitions)
	for _, rep := range reps {
		for _, w := range rep.Workloads {
			if w.Control || len(w.Metrics) == 0 {
				continue
			}
			m := w.Metrics[0]
			if m.LevelsA == nil || m.LevelsB == nil {
				continue
			}
			la, lb := m.LevelsA.Relative(), m.LevelsB.Relative()
			pooled := stats.Levels{Between: (la.Between + lb.Between) / 2, Within: (la.Within + lb.Within) / 2}
			r := pooled.OptimalRepetitions(c.Boot.Seconds(), c.Rep.Seconds(), MinRunsPerBoot, hi)
			if c.Rep <= 0 || c.Boot <= 0 { // no cost measured: keep the count
				r = min(max(base, MinRunsPerBoot), hi)
			}
			n := max(stats.BootsNeeded(la.PerBoot(r)+lb.PerBoot(r), targetPct/100), MinBootsForInterval)
			if !ok || n > a.Boots {
				a = Allocation{Workload: w.ID, Against: rep.B.Ref, Share: pooled.BootShare(), Clamped: la.Clamped || lb.Clamped,
					Runs: r, Boots: n, Have: min(rep.A.Boots, rep.B.Boots), Costs: c}
				ok = true
			}
		}
	}
	return a, ok
}

// String is the progress line of the choice: "adaptive: boot-to-boot
// spread is 70% of sched-pipe's variance (a boot costs 0:41, a
// repetition 0:02): next boots with 4 repetitions each; about 9 boots a
// side reach ±2 points (5 so far)".
func (a Allocation) String() string {
	clamped := ""
	if a.Clamped {
		clamped = ", a negative between-boot estimate taken as 0"
	}
	return fmt.Sprintf("adaptive: boot-to-boot spread is %.0f%% of %s's variance%s (a boot costs %s, a repetition %s): next boots with %d repetitions each; about %d boots a side reach the target (%d so far)",
		a.Share*100, a.Workload, clamped, measure.Clock(a.Costs.Boot), clockOrSeconds(a.Costs.Rep), a.Runs, a.Boots, a.Have)
}

// clockOrSeconds is a short duration as "0.4s", a longer one as a clock.
func clockOrSeconds(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return measure.Clock(d)
}

// MaxRoundBoots bounds the boots of each configuration in one round of
// adaptive repetition: the variance is estimated again after each round.
const MaxRoundBoots = 3

// RoundBoots is how many boots of each of configs configurations the next
// round gets: the boots a side the allocation still misses, at most
// MaxRoundBoots and no more than fit in the time left at perBoot a boot;
// at least 1 (whether one fits is Policy.Round's to say).
func (a Allocation) RoundBoots(configs int, left, perBoot time.Duration) int {
	k := min(max(a.Boots-a.Have, 1), MaxRoundBoots)
	for k > 1 && time.Duration(k*configs)*perBoot > left {
		k--
	}
	return k
}
