package sysinfo

// cpuid executes the CPUID instruction (cpuid_amd64.s).
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// cpuidHypervisor reads CPUID leaf 1 ECX bit 31 (the "hypervisor present"
// bit) and, when it is set, the vendor signature of leaf 0x40000000
// (EBX:ECX:EDX, e.g. "Microsoft Hv", "KVMKVMKVM"). ok is false when CPUID
// cannot be used on this architecture.
func cpuidHypervisor() (present bool, signature string, ok bool) {
	_, _, ecx, _ := cpuid(1, 0)
	if ecx&(1<<31) == 0 {
		return false, "", true
	}
	_, b, c, d := cpuid(0x40000000, 0)
	return true, signatureString(b, c, d), true
}
