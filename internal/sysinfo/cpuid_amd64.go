package sysinfo

// cpuid executes the CPUID instruction (cpuid_amd64.s).
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// cpuidProbe reads what CPUID says of a hypervisor, as this process sees
// it: leaf 1 ECX bit 31 (the "hypervisor present" bit), the vendor
// signature of every hypervisor leaf range the kernel scans
// (0x40000000 to 0x4000ff00 in steps of 0x100, arch/x86/kernel/cpu/
// hypervisor.c and kvm_cpuid_base: KVM offering Hyper-V's interface puts
// its own at 0x40000100, Xen with Viridian likewise), and the brand
// string of leaves 0x80000002-4. ok is false when CPUID cannot be used on
// this architecture.
func cpuidProbe() (p cpuidInfo, ok bool) {
	_, _, ecx, _ := cpuid(1, 0)
	p.Present = ecx&(1<<31) != 0
	if p.Present {
		for leaf := uint32(0x40000000); leaf < 0x40010000; leaf += 0x100 {
			max, b, c, d := cpuid(leaf, 0)
			if sig := signatureString(b, c, d); sig != "" && max >= leaf && printable(sig) {
				p.Leaves = append(p.Leaves, cpuidLeaf{Leaf: leaf, Signature: sig})
			}
		}
	}
	if max, _, _, _ := cpuid(0x80000000, 0); max >= 0x80000004 {
		var b []byte
		for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
			a, bx, cx, dx := cpuid(leaf, 0)
			for _, r := range []uint32{a, bx, cx, dx} {
				b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
			}
		}
		p.Brand = cleanBrand(b)
	}
	return p, true
}
