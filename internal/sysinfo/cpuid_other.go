//go:build !amd64

package sysinfo

// cpuidHypervisor is the fallback for architectures without the CPUID
// stub: it reports that CPUID cannot be used, and the other sources
// (/sys/hypervisor, cpuinfo, DMI) decide.
func cpuidHypervisor() (present bool, signature string, ok bool) { return false, "", false }
