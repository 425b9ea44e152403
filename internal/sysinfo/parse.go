package sysinfo

import "strings"

// PreemptionFromVersion reads the preemption model from the build flags in
// /proc/version ("#1 SMP PREEMPT_DYNAMIC …"): rt, lazy, dynamic, full, or
// "" when no PREEMPT flag is printed (none or voluntary, which the kernel
// does not tell apart there).
func PreemptionFromVersion(v string) string {
	for _, w := range strings.Fields(v) {
		switch w {
		case "PREEMPT_RT":
			return "rt"
		case "PREEMPT_LAZY":
			return "lazy"
		case "PREEMPT_DYNAMIC":
			return "dynamic"
		}
	}
	for _, w := range strings.Fields(v) {
		if w == "PREEMPT" {
			return "full"
		}
	}
	return ""
}

// selected picks the bracketed choice of a sysfs multiple-choice file
// ("always [madvise] never" gives "madvise").
func selected(v string) string {
	i := strings.Index(v, "[")
	j := strings.Index(v, "]")
	if i >= 0 && j > i {
		return v[i+1 : j]
	}
	return v
}
