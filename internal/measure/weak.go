package measure

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/sysinfo"
)

// The bounds beyond which a run's figures are weak, said where they are
// made (Weak).
const (
	// WeakHalfWidthPct: a primary metric whose median's 95% interval
	// reaches further than ±10% cannot show a tax of a few percent.
	WeakHalfWidthPct = 10.0
	// BusyLoadPerCPU: a one-minute load average at the start of at least
	// half a task per online CPU (and at least 1) means other work was
	// running where the run measures.
	BusyLoadPerCPU = 0.5
	// WeakStealPct: a hypervisor that gave 5% or more of the CPU time to
	// others while the run measured.
	WeakStealPct = 5.0
)

// LoadReader reads the machine's load below root for a run's start and
// end (sysinfo.ReadLoad with this process as self); nil when none of it
// can be read (a fake root without /proc/loadavg or /proc/stat).
func LoadReader(root string) func() *sysinfo.Load {
	return func() *sysinfo.Load {
		l, _ := sysinfo.ReadLoad(root, os.Getpid(), time.Now())
		if l.Load1 == nil && l.CPUSeconds == nil && l.OtherSectax == 0 {
			return nil
		}
		return &l
	}
}

// Weak says, one line each, why the figures of r are weak: the machine
// was busy (its load average at the start, the steal a hypervisor took,
// other sectax processes measuring at the same time: recorded in r.Load),
// or the run's own intervals are too wide to show a tax of a few percent.
// Nothing when they are sound.
func Weak(r *run.Run) []string {
	var out []string
	if l := r.Load; l != nil {
		cpus := 0
		if r.Env != nil {
			cpus = r.Env.CPU.Online
		}
		if s := l.Start; s != nil && s.Load1 != nil && *s.Load1 >= math.Max(1, BusyLoadPerCPU*float64(cpus)) {
			on := ""
			if cpus > 0 {
				on = fmt.Sprintf(" on %d CPUs", cpus)
			}
			out = append(out, fmt.Sprintf("the machine was busy when the run started (load average %.2f%s): other work shared the CPUs, so these figures are slower and noisier than the mitigations make them; quiet the machine and run again", *s.Load1, on))
		}
		if pct, ok := l.StealPct(); ok && pct >= WeakStealPct {
			out = append(out, fmt.Sprintf("the hypervisor took %.1f%% of the CPU time while the run measured (steal): its other guests' load is in these figures; measure when the host is quiet", pct))
		}
		n := 0
		for _, x := range []*sysinfo.Load{l.Start, l.End} {
			if x != nil {
				n = max(n, x.OtherSectax)
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%d other sectax process%s measured at the same time (another run, a lab or a campaign): they compete for the same CPUs; measure one at a time", n, map[bool]string{true: "", false: "es"}[n == 1]))
		}
	}
	var wide []string
	for _, res := range r.Results {
		if len(res.Metrics) == 0 {
			continue
		}
		if hw, ok := stats.HalfWidthPct(res.Metrics[0].Samples); ok && hw > WeakHalfWidthPct {
			wide = append(wide, fmt.Sprintf("%s ±%.0f%%", res.Workload, hw))
		}
	}
	if len(wide) > 0 {
		slices.Sort(wide)
		out = append(out, fmt.Sprintf("intervals too wide to show a tax of a few percent (95%% interval of the median beyond ±%.0f%%): %s; run more repetitions (--runs) or --precision 2 on a quiet machine",
			WeakHalfWidthPct, strings.Join(wide, ", ")))
	}
	return out
}
