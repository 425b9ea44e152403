package sysinfo

import (
	"fmt"
	"slices"
	"strings"
)

// Note: /proc/cpuinfo is parsed here rather than with procfs.FS.CPUInfo,
// because procfs picks its parser by the GOARCH sectax was built for, not by
// the file's content: an amd64 build cannot read an arm64 machine's
// cpuinfo from a fake tree (it fails on the missing "processor" layout).
// This parser reads both shapes and never fails.

// ParseCPUInfo summarises /proc/cpuinfo: the identity of the first
// processor, its bug and feature flags, and the number of processors. It
// accepts the layouts of x86, arm64, arm, powerpc, s390, riscv and
// loongarch (ArchFromCPUInfo tells them apart) and any other text (which
// gives an empty summary).
func ParseCPUInfo(data []byte) CPU {
	var c CPU
	var first map[string]string
	header := map[string]string{}
	cur := map[string]string{}
	flush := func() {
		if _, ok := cur["processor"]; ok {
			c.Processors++
			if first == nil {
				first = cur
			}
		} else if first == nil {
			// Old arm kernels print the identity in a block without a
			// "processor" key; use it to fill what the first processor lacks.
			for k, v := range cur {
				header[k] = v
			}
		}
		cur = map[string]string{}
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		v = strings.TrimSpace(v)
		if k == "processor" {
			if _, seen := cur["processor"]; seen {
				// No blank line between processors: start a new block.
				flush()
			}
		}
		if _, seen := cur[k]; !seen {
			cur[k] = v
		}
	}
	flush()
	if first == nil && strings.HasPrefix(header["vendor_id"], "IBM/S390") {
		// s390 prints one machine block ("# processors", "features") and
		// "processor N: version = …" lines, no "processor" key.
		first = header
		fmt.Sscan(header["# processors"], &c.Processors)
	}
	if first == nil {
		return c
	}
	for k, v := range header {
		if _, ok := first[k]; !ok {
			first[k] = v
		}
	}
	var allFlags []string
	c.Arch = ArchFromCPUInfo(first)
	switch c.Arch {
	case "s390":
		c.Vendor = "IBM"
		c.ModelName = "IBM Z"
		allFlags = strings.Fields(first["features"])
	case "powerpc":
		c.Vendor = "IBM"
		c.ModelName = first["cpu"]
		c.Stepping = first["revision"]
	case "loongarch":
		c.Vendor = "Loongson"
		c.ModelName = first["Model Name"]
		c.Family = first["CPU Family"]
		c.Stepping = first["CPU Revision"]
		allFlags = strings.Fields(first["Features"])
	case "riscv":
		c.Vendor = first["mvendorid"]
		c.ModelName = first["uarch"]
		c.Model = first["marchid"]
		c.Stepping = first["mimpid"]
	case "x86":
		c.Vendor = first["vendor_id"]
		c.ModelName = first["model name"]
		c.Family = first["cpu family"]
		c.Model = first["model"]
		c.Stepping = first["stepping"]
		c.Microcode = first["microcode"]
		allFlags = strings.Fields(first["flags"])
	case "arm64", "arm":
		c.Vendor = armImplementer(first["CPU implementer"])
		c.Family = first["CPU architecture"]
		c.Model = first["CPU part"]
		c.ModelName = armPart(first["CPU implementer"], first["CPU part"])
		if c.ModelName == "" {
			c.ModelName = first["model name"]
		}
		if c.ModelName == "" && c.Arch == "arm" {
			c.ModelName = first["Processor"] // arch/arm before 3.8
		}
		if v, r := first["CPU variant"], first["CPU revision"]; v != "" || r != "" {
			c.Stepping = fmt.Sprintf("r%sp%s", strings.TrimPrefix(v, "0x"), r)
		}
		allFlags = strings.Fields(first["Features"])
	default:
		c.ModelName = first["model name"]
		c.Vendor = first["vendor_id"]
	}
	c.FlagCount = len(allFlags)
	c.Flags = []string{}
	for _, f := range RelevantFlags {
		if slices.Contains(allFlags, f) {
			c.Flags = append(c.Flags, f)
		}
	}
	c.Bugs = strings.Fields(first["bugs"])
	if c.Bugs == nil {
		c.Bugs = []string{}
	}
	return c
}

// armImplementer names the arm and arm64 "CPU implementer" codes sectax knows.
func armImplementer(code string) string {
	names := map[string]string{
		"0x41": "ARM", "0x42": "Broadcom", "0x43": "Cavium", "0x46": "Fujitsu",
		"0x48": "HiSilicon", "0x4e": "NVIDIA", "0x50": "APM", "0x51": "Qualcomm",
		"0x61": "Apple", "0x6d": "Microsoft", "0xc0": "Ampere",
	}
	if n, ok := names[strings.ToLower(code)]; ok {
		return n
	}
	return code
}

// armPart names a few common Arm Ltd. cores; others stay "".
func armPart(impl, part string) string {
	if strings.ToLower(impl) != "0x41" {
		return ""
	}
	names := map[string]string{
		"0xd03": "Cortex-A53", "0xd07": "Cortex-A57", "0xd08": "Cortex-A72", "0xd0b": "Cortex-A76",
		"0xd0c": "Neoverse-N1", "0xd40": "Neoverse-V1", "0xd49": "Neoverse-N2", "0xd4f": "Neoverse-V2",
		"0xd8e": "Neoverse-N3", "0xd84": "Neoverse-V3",
		// 32-bit cores (arch/arm)
		"0xb76": "ARM1176", "0xc05": "Cortex-A5", "0xc07": "Cortex-A7", "0xc08": "Cortex-A8",
		"0xc09": "Cortex-A9", "0xc0d": "Cortex-A12", "0xc0e": "Cortex-A17", "0xc0f": "Cortex-A15",
	}
	return names[strings.ToLower(part)]
}

// ParseCPUList counts the CPUs of a kernel CPU list ("0-3,8,10-11"). It
// returns 0 for empty or malformed text.
func ParseCPUList(s string) int {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	n := 0
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, ok1 := atoiSmall(lo)
		b := a
		ok2 := true
		if isRange {
			b, ok2 = atoiSmall(hi)
		}
		if !ok1 || !ok2 || b < a {
			return 0
		}
		n += b - a + 1
	}
	return n
}

// atoiSmall parses a non-negative decimal below 1<<20 (no CPU list names
// more), so that a hostile file cannot overflow the count.
func atoiSmall(s string) (int, bool) {
	if s == "" || len(s) > 7 {
		return 0, false
	}
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, n < 1<<20
}
