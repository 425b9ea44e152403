package measure

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/plan"
)

// SetAffinity pins every thread of this process to cpus. Threads and
// processes created later inherit the mask from their creator, so the whole
// run, its worker threads and its children stay on cpus. A CPU this process
// may not use is an error (plan.CPUs has checked that each is online).
func SetAffinity(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 || c >= 1024 {
			return fmt.Errorf("CPU %d is out of range", c)
		}
		set.Set(c)
	}
	// Threads started while the list is walked may inherit the old mask
	// from an unpinned creator, so walk until a pass finds nothing new.
	done := map[int]bool{}
	for pass := 0; pass < 10; pass++ {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("list threads: %w", err)
		}
		fresh := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh = true
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("cannot pin to CPUs %s (a cpuset may forbid them): %w", plan.FormatCPUList(cpus), err)
			}
			done[tid] = true
		}
		if !fresh {
			break
		}
	}
	return nil
}

func cpuSetList(s *unix.CPUSet) []int {
	var out []int
	for c := 0; c < 1024; c++ {
		if s.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}
