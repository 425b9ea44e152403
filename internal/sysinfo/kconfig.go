package sysinfo

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
)

// KernelConfig is what the kernel's build configuration says about
// mitigations and scheduling, from /proc/config.gz (CONFIG_IKCONFIG_PROC)
// or /boot/config-<release>.
type KernelConfig struct {
	// Source is the file read ("/proc/config.gz", "/boot/config-6.8.0-85-generic").
	Source string `json:"source"`
	// CPUMitigations is CONFIG_CPU_MITIGATIONS (6.9+) or its earlier name
	// CONFIG_SPECULATION_MITIGATIONS: "y", "n" (explicitly not set) or ""
	// (the kernel predates both).
	CPUMitigations string `json:"cpu_mitigations"`
	// Preempt is the build's preemption model: none, voluntary, full, lazy
	// or rt; PreemptDynamic says it can be changed at boot (preempt=).
	Preempt        string `json:"preempt"`
	PreemptDynamic bool   `json:"preempt_dynamic"`
	// Options are the mitigation-related options, as written ("y", "n" for
	// "is not set", or a value): CONFIG_MITIGATION_*, CONFIG_PAGE_TABLE_ISOLATION,
	// CONFIG_RETPOLINE, CONFIG_CPU_MITIGATIONS, CONFIG_LEGACY_VSYSCALL_*,
	// CONFIG_AUDIT, CONFIG_HZ, CONFIG_NO_HZ_FULL and the preemption model.
	Options map[string]string `json:"options"`
}

// relevantConfig reports whether a CONFIG_ name is kept in Options.
func relevantConfig(name string) bool {
	for _, p := range []string{"CONFIG_MITIGATION_", "CONFIG_LEGACY_VSYSCALL_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "CONFIG_CPU_MITIGATIONS", "CONFIG_SPECULATION_MITIGATIONS", "CONFIG_PAGE_TABLE_ISOLATION",
		"CONFIG_RETPOLINE", "CONFIG_CPU_UNRET_ENTRY", "CONFIG_CPU_IBPB_ENTRY", "CONFIG_CPU_IBRS_ENTRY",
		"CONFIG_CPU_SRSO", "CONFIG_SLS", "CONFIG_AUDIT", "CONFIG_AUDITSYSCALL", "CONFIG_HZ", "CONFIG_NO_HZ_FULL",
		"CONFIG_UNPRIVILEGED_BPF_DEFAULT_OFF", "CONFIG_BPF_UNPRIV_DEFAULT_OFF", "CONFIG_KVM", "CONFIG_HYPERV",
		"CONFIG_PREEMPT_NONE", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT", "CONFIG_PREEMPT_LAZY",
		"CONFIG_PREEMPT_RT", "CONFIG_PREEMPT_DYNAMIC":
		return true
	}
	return false
}

// ParseKernelConfig reads a kernel .config (plain text, or gzip as in
// /proc/config.gz) and keeps the options that matter to sectax. It never
// fails: unreadable or foreign text gives an empty result (Options
// non-nil).
func ParseKernelConfig(data []byte) KernelConfig {
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return KernelConfig{Options: map[string]string{}}
		}
		// A config is about 300 KiB; 8 MiB bounds a hostile file.
		plain, _ := io.ReadAll(io.LimitReader(zr, 8<<20))
		data = plain
	}
	kc := KernelConfig{Options: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		var name, val string
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			n, ok := strings.CutSuffix(rest, " is not set")
			if !ok || !strings.HasPrefix(n, "CONFIG_") {
				continue
			}
			name, val = n, "n"
		} else {
			n, v, ok := strings.Cut(line, "=")
			if !ok || !strings.HasPrefix(n, "CONFIG_") {
				continue
			}
			name, val = n, strings.Trim(v, `"`)
		}
		if relevantConfig(name) {
			kc.Options[name] = val
		}
	}
	for _, n := range []string{"CONFIG_CPU_MITIGATIONS", "CONFIG_SPECULATION_MITIGATIONS"} {
		if v, ok := kc.Options[n]; ok {
			kc.CPUMitigations = v
			break
		}
	}
	o := kc.Options
	switch {
	case o["CONFIG_PREEMPT_RT"] == "y":
		kc.Preempt = "rt"
	case o["CONFIG_PREEMPT_LAZY"] == "y":
		kc.Preempt = "lazy"
	case o["CONFIG_PREEMPT"] == "y":
		kc.Preempt = "full"
	case o["CONFIG_PREEMPT_VOLUNTARY"] == "y":
		kc.Preempt = "voluntary"
	case o["CONFIG_PREEMPT_NONE"] == "y":
		kc.Preempt = "none"
	}
	kc.PreemptDynamic = o["CONFIG_PREEMPT_DYNAMIC"] == "y"
	return kc
}
