package runner

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ParseCPUList parses a CPU list in the kernel's format ("0", "0-3",
// "0,2,4-5") into sorted, distinct CPU numbers.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty CPU list (want e.g. 0 or 0-1,3)")
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad CPU %q in %q (want e.g. 0 or 0-1,3)", part, s)
		}
		b := a
		if isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
			if err != nil || b < a {
				return nil, fmt.Errorf("bad CPU range %q in %q (want e.g. 0-3)", part, s)
			}
		}
		if b >= 1<<16 {
			return nil, fmt.Errorf("CPU %d in %q is out of range", b, s)
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	out := make([]int, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Ints(out)
	return out, nil
}

// FormatCPUList renders CPUs in the kernel's list format.
func FormatCPUList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// SetAffinity pins every thread of this process to cpus. Threads and
// processes created later inherit the mask from their creator, so the whole
// run, its worker threads and its children stay on cpus. A CPU this process
// may not use is an error naming the CPUs it may use.
func SetAffinity(cpus []int) error {
	online, _ := os.ReadFile("/sys/devices/system/cpu/online")
	allowed, err := ParseCPUList(string(online))
	if err != nil {
		allowed = nil // unknown: let sched_setaffinity judge
	}
	var set unix.CPUSet
	for _, c := range cpus {
		if allowed != nil && !slices.Contains(allowed, c) {
			return fmt.Errorf("CPU %d is not online (online: %s)", c, FormatCPUList(allowed))
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
				return fmt.Errorf("cannot pin to CPUs %s (a cpuset may forbid them): %w", FormatCPUList(cpus), err)
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
