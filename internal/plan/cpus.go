package plan

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
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

// CPUs parses --cpus (a CPU list) and checks that every CPU is online
// on this machine (the workloads run here whatever --root says): a CPU
// that is not is an error naming the online ones, before anything runs.
func CPUs(s string) ([]int, error) {
	cpus, err := ParseCPUList(s)
	if err != nil {
		return nil, err
	}
	online, _ := os.ReadFile("/sys/devices/system/cpu/online")
	allowed, err := ParseCPUList(string(online))
	if err != nil {
		return cpus, nil // unknown: sched_setaffinity judges
	}
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			return nil, fmt.Errorf("CPU %d is not online (online: %s)", c, FormatCPUList(allowed))
		}
	}
	return cpus, nil
}
