package sysinfo

import (
	"runtime"
	"testing"
)

// TestArchFromCPUInfo reads the first block of each architecture's
// /proc/cpuinfo, as the kernel function named in ArchFromCPUInfo prints
// it (the lines are from posted real machines: see the fake roots'
// READMEs), and a Features line that is not arm64's.
func TestArchFromCPUInfo(t *testing.T) {
	for _, tt := range []struct {
		name, text, want string
	}{
		{"x86", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nflags\t\t: fpu vme\n", "x86"},
		{"arm64", "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n", "arm64"},
		{"arm64 compat task", "processor\t: 0\nmodel name\t: ARMv8 Processor rev 1 (v8l)\nFeatures\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt lpae evtstrm aes pmull sha1 sha2 crc32\nCPU implementer\t: 0x41\nCPU architecture: 8\n", "arm64"},
		{"arm64 before 3.19", "Processor\t: AArch64 Processor rev 4 (aarch64)\nprocessor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x51\nCPU architecture: AArch64\n", "arm64"},
		{"arm 32-bit", "processor\t: 0\nmodel name\t: ARMv7 Processor rev 4 (v7l)\nBogoMIPS\t: 38.40\nFeatures\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt vfpd32 lpae evtstrm crc32\nCPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0\nCPU part\t: 0xd03\n", "arm"},
		{"arm 32-bit before 3.8", "Processor\t: ARMv7 Processor rev 10 (v7l)\nprocessor\t: 0\nBogoMIPS\t: 790.52\nFeatures\t: swp half thumb fastmult vfp edsp neon vfpv3 tls\n", "arm"},
		{"arm ARMv6", "processor\t: 0\nmodel name\t: ARMv6-compatible processor rev 7 (v6l)\nFeatures\t: half thumb fastmult vfp edsp java tls\nCPU implementer\t: 0x41\nCPU architecture: 7\nCPU part\t: 0xb76\n", "arm"},
		{"arm 6TEJ", "processor\t: 0\nFeatures\t: swp half thumb\nCPU architecture: 6TEJ\n", "arm"},
		{"loongarch", "system type\t\t: generic-loongson-machine\n\nprocessor\t\t: 0\nCPU Family\t\t: Loongson-64bit\nModel Name\t\t: Loongson-3A5000\nISA\t\t\t: loongarch32r loongarch32s loongarch64\nFeatures\t\t: cpucfg lam ual fpu lsx lasx crc32 complex crypto lvz lbt_x86 lbt_arm lbt_mips\n", "loongarch"},
		{"riscv", "processor\t: 0\nhart\t\t: 1\nisa\t\t: rv64imafdc_zicntr_zicsr_zifencei_zihpm\nmmu\t\t: sv39\nuarch\t\t: sifive,u74-mc\nmvendorid\t: 0x489\n", "riscv"},
		{"powerpc", "processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\nclock\t\t: 2200.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n", "powerpc"},
		{"s390", "vendor_id       : IBM/S390\n# processors    : 2\nfeatures\t: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx vxd vxe gs vxe2 vxp sort dflt sie\n", "s390"},
		{"none", "hello: world\n", ""},
	} {
		if got := ParseCPUInfo([]byte(tt.text)).Arch; got != tt.want {
			t.Errorf("%s: arch %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestArchFromMachine maps the utsname machines of each architecture.
func TestArchFromMachine(t *testing.T) {
	for in, want := range map[string]string{
		"x86_64": "x86", "i686": "x86", "aarch64": "arm64", "armv7l": "arm", "armv6l": "arm", "armv8l": "",
		"ppc64le": "powerpc", "ppc64": "powerpc", "s390x": "s390", "riscv64": "riscv", "loongarch64": "loongarch",
		"": "", "mips64": "", "x86_64\n": "x86",
	} {
		if got := ArchFromMachine(in); got != want {
			t.Errorf("ArchFromMachine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestArchLive: the running machine's architecture comes from the kernel's
// machine name, and matches the one this test was built for.
func TestArchLive(t *testing.T) {
	s, err := Collect("/")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"amd64": "x86", "386": "x86", "arm64": "arm64", "arm": "arm", "ppc64le": "powerpc",
		"s390x": "s390", "riscv64": "riscv", "loong64": "loongarch"}[runtime.GOARCH]
	if s.CPU.Arch != want || s.CPU.Machine == "" || (s.CPU.ArchSource != "uname" && s.CPU.ArchSource != "/proc/sys/kernel/arch") {
		t.Errorf("arch %q from %q (machine %q), want %q from the kernel's machine name", s.CPU.Arch, s.CPU.ArchSource, s.CPU.Machine, want)
	}
}
