package sysinfo

import (
	"strconv"
	"strings"
)

// The architecture is judged from the kernel's own evidence: the machine
// name of utsname (proc/sys/kernel/arch, which prints it, or uname(2) on
// the running machine) when there is one, else the layout of
// /proc/cpuinfo, which each architecture's kernel writes its own way.

// ArchFromMachine maps a utsname machine ("x86_64", "aarch64",
// "armv7l", "ppc64le", "s390x", "riscv64", "loongarch64") to sectax's
// architecture name; "" for one it does not know.
func ArchFromMachine(machine string) string {
	m := strings.TrimSpace(machine)
	switch {
	case m == "x86_64" || m == "amd64" || (len(m) == 4 && m[0] == 'i' && strings.HasSuffix(m, "86")):
		return "x86"
	case m == "aarch64" || m == "arm64" || m == "aarch64_be":
		return "arm64"
	case strings.HasPrefix(m, "arm"):
		// armv7l, armv6l, armv8l (a 32-bit personality on arm64 says
		// armv8l; its kernel is still arm64, whose cpuinfo says so).
		if m == "armv8l" || m == "armv8b" {
			return ""
		}
		return "arm"
	case strings.HasPrefix(m, "ppc") || strings.HasPrefix(m, "powerpc"):
		return "powerpc"
	case strings.HasPrefix(m, "s390"):
		return "s390"
	case strings.HasPrefix(m, "riscv"):
		return "riscv"
	case strings.HasPrefix(m, "loongarch"):
		return "loongarch"
	}
	return ""
}

// ArchFromCPUInfo tells the architecture from the keys of one processor's
// block of /proc/cpuinfo (with the lines before the first "processor"
// merged in), as each kernel prints them:
//
//   - s390, arch/s390/kernel/processor.c show_cpuinfo: "vendor_id : IBM/S390",
//     "# processors", "features", "processor N: version = …".
//   - loongarch, arch/loongarch/kernel/proc.c show_cpuinfo: "CPU Family :
//     Loongson-64bit", "Model Name", "ISA : … loongarch64", and a "Features"
//     line (which alone does not mean arm).
//   - riscv, arch/riscv/kernel/cpu.c c_show: "isa : rv64imafdc…", "mmu : sv39",
//     "mvendorid", "marchid", "mimpid", "uarch" (device-tree systems).
//   - powerpc, arch/powerpc/kernel/setup-common.c show_cpuinfo: "cpu : POWER9
//     (raw), altivec supported", "revision : 2.2 (pvr 004e 1202)", then
//     "platform : pSeries|PowerNV", "model", "machine".
//   - x86, arch/x86/kernel/cpu/proc.c show_cpuinfo: "vendor_id", "cpu family",
//     "flags", "bugs".
//   - arm64, arch/arm64/kernel/cpuinfo.c c_show: "Features", "CPU implementer",
//     "CPU architecture: 8" (always 8, also for ARMv9 cores and for the
//     "model name : ARMv8 Processor rev N (v8l)" of a 32-bit task); kernels
//     before 3.19 said "CPU architecture: AArch64" and "Processor : AArch64
//     Processor rev N (aarch64)".
//   - arm (32-bit), arch/arm/kernel/setup.c c_show: "model name : ARMv7
//     Processor rev 10 (v7l)" ("Processor :" before 3.8), "Features",
//     "CPU architecture: 7" (proc_arch[]: "7", "6TEJ", "5TEJ", "7M", …; an
//     ARMv8 core running a 32-bit kernel says 7 too).
//
// It returns "" when the block has none of these shapes.
func ArchFromCPUInfo(first map[string]string) string {
	switch {
	case strings.HasPrefix(first["vendor_id"], "IBM/S390"):
		return "s390"
	case strings.HasPrefix(first["CPU Family"], "Loongson") || strings.Contains(first["ISA"], "loongarch"):
		return "loongarch"
	case strings.HasPrefix(first["isa"], "rv"):
		return "riscv"
	case strings.Contains(first["revision"], "pvr") || strings.HasPrefix(first["cpu"], "POWER") || strings.HasPrefix(first["cpu"], "PPC"):
		return "powerpc"
	case first["vendor_id"] != "" || first["flags"] != "":
		return "x86"
	case first["CPU implementer"] != "" || first["Features"] != "" || first["CPU architecture"] != "":
		return armArch(first["CPU architecture"], first["model name"]+" "+first["Processor"])
	}
	return ""
}

// armArch tells a 32-bit arm kernel's cpuinfo from an arm64 one's by its
// "CPU architecture" line, then by the processor name; without either it
// is taken for arm64, the common case.
func armArch(cpuArch, name string) string {
	a := strings.TrimSpace(cpuArch)
	switch {
	case a == "8" || a == "AArch64" || strings.Contains(name, "AArch64"):
		return "arm64"
	case a != "":
		// proc_arch[] of arch/arm: a version below 8, maybe with letters.
		n := strings.TrimRight(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZ?()")
		if v, err := strconv.Atoi(n); err == nil && v < 8 {
			return "arm"
		}
		return "arm64"
	case strings.HasPrefix(strings.TrimSpace(name), "ARMv") && !strings.HasPrefix(strings.TrimSpace(name), "ARMv8"):
		return "arm"
	}
	return "arm64"
}
