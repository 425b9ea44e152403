//go:build !amd64

package sysinfo

// cpuidProbe is the fallback for architectures without the CPUID stub: it
// reports that CPUID cannot be used, and the other sources
// (/sys/hypervisor, the device tree, cpuinfo, DMI) decide.
func cpuidProbe() (p cpuidInfo, ok bool) { return p, false }
