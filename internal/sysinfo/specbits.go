package sysinfo

// SpecBits names the bits of a PR_GET_SPECULATION_CTRL value
// (include/uapi/linux/prctl.h): prctl (the task may change it), enable
// (speculation on, mitigation off), disable (mitigation on), force_disable
// and disable_noexec. 0 means the CPU is not affected.
func SpecBits(v int) []string {
	if v == 0 {
		return []string{"not_affected"}
	}
	names := []string{"prctl", "enable", "disable", "force_disable", "disable_noexec"}
	var out []string
	for i, n := range names {
		if v&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}
