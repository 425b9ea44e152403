// Package sysinfo takes a snapshot of the machine a run measures, reading
// /proc and /sys below a root directory so that tests can use fake trees.
//
// Every file is read through one rootfs.FS opened at the root (collect.go
// says why procfs's readers are not used), one file of this package per
// source (kernel.go, cmdline.go, vulnerabilities.go, cpu.go, system.go,
// hypervisor.go, wsl.go). Parsed values keep their raw text beside them. A file that does not exist is listed in
// Snapshot.Absent, one that cannot be read in Snapshot.Unreadable; neither is
// an error. A value that could not be read is "" (strings) or null
// (numbers, booleans, lists): the fields of the JSON contract (docs/format.md and
// issue 3) are always present; the extra detail fields (raw texts,
// evidence, *_source, prctl values) are left out when empty.
//
// Things that only make sense for the running machine (CPUID, prctl,
// environment variables, running wsl.exe, the Go and sectax versions) are
// looked at only when the root is "/", so a snapshot of a fake tree is the
// same on every machine.
package sysinfo

import (
	"context"
	"errors"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/rootfs"
)

// ErrNeedsLinux is returned by Collect on an operating system other than
// Linux.
var ErrNeedsLinux = errors.New("sectax needs Linux: it reads the kernel's /proc and /sys and runs Linux system calls")

// ErrBadRoot is wrapped by the error Collect returns when root is not a
// directory that holds proc/ or sys/.
var ErrBadRoot = errors.New("bad root directory")

// Snapshot is the environment of a run: the `env` object of the
// sectax.run/v1 document and the output of `sectax env --format json`.
type Snapshot struct {
	// Live is true when the snapshot is of the running machine (root "/").
	Live    bool    `json:"live"`
	Kernel  Kernel  `json:"kernel"`
	Cmdline Cmdline `json:"cmdline"`
	// MitigationMode is what the command line asks for: on, off, custom
	// or unknown (mitigation.Mode).
	MitigationMode       mitigation.Mode `json:"mitigation_mode"`
	MitigationModeReason string          `json:"mitigation_mode_reason"`
	// Vulnerabilities are the files of /sys/devices/system/cpu/vulnerabilities
	// sorted by name; null when the directory is absent (containers, old
	// kernels, some arm64 boards).
	Vulnerabilities     []mitigation.Vulnerability `json:"vulnerabilities"`
	VulnerabilityCounts mitigation.Counts          `json:"vulnerability_counts"`
	CPU                 CPU                        `json:"cpu"`
	SMT                 SMT                        `json:"smt"`
	Hypervisor          Hypervisor                 `json:"hypervisor"`
	// WSL is null when the machine is not a WSL guest.
	WSL         *WSL        `json:"wsl"`
	Speculation Speculation `json:"speculation"`
	Memory      Memory      `json:"memory"`
	Cpufreq     Cpufreq     `json:"cpufreq"`
	THP         THP         `json:"thp"`
	// BootID is /proc/sys/kernel/random/boot_id: it tells boots apart.
	BootID string `json:"boot_id"`
	// Hostname is /proc/sys/kernel/hostname.
	Hostname string `json:"hostname"`
	// OSRelease is PRETTY_NAME of /etc/os-release (or /usr/lib/os-release).
	OSRelease string `json:"os_release"`
	// Fingerprint hashes what decides the mitigation state, so that two
	// runs can be told to share it or not at a glance.
	Fingerprint Fingerprint `json:"fingerprint"`
	// GoVersion is the Go runtime sectax was built with (live only).
	GoVersion string `json:"go_version,omitempty"`
	// GoToolchain is what `go env GOVERSION` says of the go command on
	// PATH, the toolchain the go-build workload times (live only; absent
	// without go).
	GoToolchain string `json:"go_toolchain,omitempty"`
	// SectaxVersion is set by the caller (the cli knows its version), live
	// only.
	SectaxVersion string `json:"sectax_version,omitempty"`
	// Absent lists the files that do not exist below the root
	// ("/sys/devices/system/cpu/smt/control").
	Absent []string `json:"absent,omitempty"`
	// Unreadable lists the files that exist but could not be read.
	Unreadable []FileError `json:"unreadable,omitempty"`
}

// Fingerprint is a pair of SHA-256 hashes (hex): of the raw kernel command
// line, and of the vulnerability files ("name\x00raw\n" for each, sorted by
// name). Empty when the input could not be read.
type Fingerprint struct {
	Cmdline         string `json:"cmdline_sha256"`
	Vulnerabilities string `json:"vulnerabilities_sha256"`
}

// FileError is a file that could not be read and why.
type FileError = rootfs.FileError

// Kernel describes the running kernel.
type Kernel struct {
	// Release is /proc/sys/kernel/osrelease ("6.18.44-fc-v657").
	Release string `json:"release"`
	// Version is /proc/version, whole.
	Version string `json:"version"`
	// UptimeSeconds is the first number of /proc/uptime.
	UptimeSeconds *float64 `json:"uptime_seconds"`
	// Clocksource is the current clock source ("tsc", "hyperv_clocksource_tsc_page").
	Clocksource string `json:"clocksource"`
	// ClocksourcesAvailable are the clock sources the kernel could use.
	ClocksourcesAvailable []string `json:"clocksources_available,omitempty"`
	// Preemption is the preemption model where visible: none, voluntary,
	// full, lazy or rt when the kernel says which; "dynamic" when it was
	// built with PREEMPT_DYNAMIC and the chosen mode is not visible
	// (debugfs needs root); "" when nothing says.
	Preemption string `json:"preemption"`
	// PreemptionSource says where Preemption came from ("debugfs",
	// "/proc/version", "config").
	PreemptionSource string `json:"preemption_source,omitempty"`
	// Config is the build configuration when /proc/config.gz or
	// /boot/config-<release> exists below the root; null otherwise.
	Config *KernelConfig `json:"config"`
}

// Cmdline is the kernel command line of the running boot.
type Cmdline struct {
	// Raw is /proc/cmdline without its trailing newline.
	Raw string `json:"raw"`
	// Tokens are the kernel parameters as written, split the way the
	// kernel splits them (quotes respected).
	Tokens []string `json:"tokens"`
	// InitArgs are the words after "--", which go to init.
	InitArgs []string `json:"init_args,omitempty"`
	// Mitigations are the mitigation-relevant parameters, classified.
	Mitigations mitigation.Mitigations `json:"mitigations"`
}

// CPU describes the processor as /proc/cpuinfo and
// /sys/devices/system/cpu show it.
type CPU struct {
	// Arch is "x86", "arm64", "arm" (32-bit), "powerpc", "s390", "riscv"
	// or "loongarch": the kernel's machine name when it is known
	// (ArchFromMachine), else the layout of /proc/cpuinfo
	// (ArchFromCPUInfo); "" when neither says.
	Arch string `json:"arch,omitempty"`
	// ArchSource says which: "/proc/sys/kernel/arch", "uname" (the
	// running machine) or "/proc/cpuinfo".
	ArchSource string `json:"arch_source,omitempty"`
	// Machine is the kernel's utsname machine ("x86_64", "aarch64",
	// "armv7l", "loongarch64") when it could be read.
	Machine string `json:"machine,omitempty"`
	// Vendor is vendor_id on x86 ("GenuineIntel", "AuthenticAMD"), the
	// implementer's name on arm64 ("ARM").
	Vendor string `json:"vendor"`
	// ModelName is "model name" on x86, the part's name on arm64 when known.
	ModelName string `json:"model_name"`
	// Family, Model and Stepping as the kernel prints them (decimal on x86;
	// on arm64 the architecture, the part number and rNpN).
	Family   string `json:"family"`
	Model    string `json:"model"`
	Stepping string `json:"stepping"`
	// Microcode is the microcode revision ("0x1"), x86 only.
	Microcode string `json:"microcode"`
	// Online and Possible count the CPUs in
	// /sys/devices/system/cpu/{online,possible}; 0 when absent.
	Online   int `json:"online"`
	Possible int `json:"possible"`
	// OnlineList and PossibleList are those files' raw ranges ("0-1").
	OnlineList   string `json:"online_list,omitempty"`
	PossibleList string `json:"possible_list,omitempty"`
	// Processors counts the processor entries of /proc/cpuinfo.
	Processors int `json:"processors"`
	// Bugs are the kernel's bug flags for this CPU ("spectre_v2", "retbleed").
	Bugs []string `json:"bugs"`
	// Flags are the feature flags that matter for mitigations, in the
	// order of RelevantFlags, those present only.
	Flags []string `json:"flags"`
	// FlagCount is the number of all feature flags.
	FlagCount int `json:"flag_count"`
	// Isolated and NohzFull are the CPU lists of
	// /sys/devices/system/cpu/{isolated,nohz_full} ("" when none or absent):
	// isolated CPUs make pinned measurements quieter.
	Isolated string `json:"isolated,omitempty"`
	NohzFull string `json:"nohz_full,omitempty"`
}

// RelevantFlags are the CPU feature flags sectax reports: the ones that
// decide which mitigation the kernel picks and what it costs.
var RelevantFlags = []string{
	"hypervisor", "pcid", "invpcid", "pti", "ibrs", "ibpb", "stibp", "ibrs_enhanced", "ssbd",
	"virt_ssbd", "amd_ssbd", "amd_ibrs", "amd_ibpb", "amd_stibp", "ibpb_brtype", "sbpb",
	"spec_ctrl_ssbd", "md_clear", "flush_l1d", "arch_capabilities", "rtm", "hle",
	"smep", "smap", "umip", "ibt", "user_shstk", "retpoline", "retpoline_lfence",
	"rethunk", "unret", "clear_bhb_loop", "bhi_ctrl",
	// arm64
	"ssbs", "sb", "csv2", "csv3", "bti",
}

// SMT is the simultaneous-multithreading state,
// /sys/devices/system/cpu/smt/{control,active}.
type SMT struct {
	// Control is "on", "off", "forceoff", "notsupported" or "notimplemented".
	Control string `json:"control"`
	// Active is true when sibling threads are running.
	Active *bool `json:"active"`
}

// Hypervisor says what the machine runs on.
type Hypervisor struct {
	// Vendor is the hypervisor ("Hyper-V", "KVM", "Xen", "VMware",
	// "PowerVM", "QEMU", "z/VM", "PVM", …); "" on bare metal or when no
	// source names it (a guest then has an unknown hypervisor).
	Vendor string `json:"vendor"`
	// Source is where Vendor came from: "cpuid", "/sys/hypervisor",
	// "/proc/device-tree/hypervisor", "dmi", "vmbus", "/proc/sysinfo",
	// "/proc/cpuinfo", "clocksource", "kernel command line", "kernel
	// release", "wsl".
	Source string `json:"source"`
	// Hint is true when only a hint named Vendor: a kernel parameter, the
	// kernel release's cloud flavour or Firecracker's init argument.
	Hint bool `json:"hint,omitempty"`
	// Platform is what runs the guest when a source says it: a cloud
	// ("Azure", "AWS", "Google Cloud", "Oracle Cloud"), a VMM
	// ("Firecracker"), a partition ("pSeries LPAR", "pSeries (QEMU)",
	// "z/VM 7.2.0", "LPAR NAME").
	Platform string `json:"platform,omitempty"`
	// Outer is a hypervisor CPUID shows below the kernel's own (on the
	// running machine, when CPUID's brand is not cpuinfo's model name: a
	// PVM guest's unprivileged CPUID reaches the host PVM runs under).
	Outer string `json:"outer,omitempty"`
	// Guest is true when anything says the machine is virtual (the
	// cpuinfo "hypervisor" flag, a vendor, a guest-only sysfs string).
	Guest bool `json:"guest"`
	// Signature is the raw CPUID leaf 0x40000000 vendor ("KVMKVMKVM").
	Signature string `json:"cpuid_signature,omitempty"`
	// Evidence lists every sign seen, for the curious.
	Evidence []string `json:"evidence,omitempty"`
}

// WSL describes a Windows Subsystem for Linux guest.
type WSL struct {
	// Version is 1 or 2.
	Version int `json:"version"`
	// Distro is $WSL_DISTRO_NAME (live only), else the os-release NAME.
	Distro string `json:"distro"`
	// KernelFlavor is the release suffix after the version
	// ("microsoft-standard-WSL2", "Microsoft"), or "custom" for a kernel
	// whose release does not name Microsoft.
	KernelFlavor string `json:"kernel_flavor"`
	// WSLPackageVersion is the WSL package version from `wslinfo --version`
	// or `wsl.exe --version` ("2.6.3.0"); absent when neither runs.
	WSLPackageVersion string `json:"wsl_package_version"`
	// WindowsVersion is the Windows version wsl.exe --version reports.
	WindowsVersion string `json:"windows_version,omitempty"`
	// WSLConfigPath is where %UserProfile%\.wslconfig lives, as a Linux
	// path, when it could be found.
	WSLConfigPath string `json:"wslconfig_path"`
	// WSLConfigExists is true when that file exists.
	WSLConfigExists bool `json:"wslconfig_exists,omitempty"`
	// WSLConfigSource says how WSLConfigPath was found (the words of
	// wslconfig.Locator, the finder sectax wslconfig edits with) or, when
	// it is empty, why: "ambiguous: N candidates" (several Windows
	// profiles, listed in WSLConfigCandidates) or "not found: …".
	WSLConfigSource string `json:"wslconfig_source,omitempty"`
	// WSLConfigCandidates are the .wslconfig paths of the profiles when
	// the choice is ambiguous.
	WSLConfigCandidates []string `json:"wslconfig_candidates,omitempty"`
	// Interop is whether Windows programs can be run (nil: not known).
	Interop *bool `json:"interop,omitempty"`
	// Evidence lists the signs that gave WSL away.
	Evidence []string `json:"evidence,omitempty"`
}

// WSLConfigAmbiguous reports whether several Windows profiles could hold
// the .wslconfig WSL reads, so that none was chosen.
func (w *WSL) WSLConfigAmbiguous() bool {
	return w != nil && strings.HasPrefix(w.WSLConfigSource, "ambiguous:")
}

// Speculation is sectax's own per-process speculation-control state, which
// the workloads it starts inherit.
type Speculation struct {
	StoreBypass    SpecCtl `json:"store_bypass"`
	IndirectBranch SpecCtl `json:"indirect_branch"`
	L1DFlush       SpecCtl `json:"l1d_flush"`
	// Seccomp is the Seccomp line of /proc/self/status (0, 1 or 2).
	Seccomp string `json:"seccomp,omitempty"`
}

// SpecCtl is one speculation control: the /proc/self/status text and the
// PR_GET_SPECULATION_CTRL value.
type SpecCtl struct {
	// Status is the /proc/self/status text ("thread vulnerable").
	Status string `json:"status,omitempty"`
	// Prctl is the raw PR_GET_SPECULATION_CTRL result (live only); nil when
	// not asked or the call failed.
	Prctl *int `json:"prctl,omitempty"`
	// PrctlBits names the bits of Prctl: prctl, enable, disable,
	// force_disable, disable_noexec; "not_affected" for 0.
	PrctlBits []string `json:"prctl_bits,omitempty"`
	// PrctlError is the error of the call, if any ("EINVAL").
	PrctlError string `json:"prctl_error,omitempty"`
}

// Memory is the machine's memory.
type Memory struct {
	// TotalBytes is MemTotal of /proc/meminfo.
	TotalBytes *uint64 `json:"total_bytes"`
}

// Cpufreq is CPU frequency scaling, from cpu0.
type Cpufreq struct {
	// Driver is scaling_driver ("intel_pstate", "acpi-cpufreq").
	Driver string `json:"driver,omitempty"`
	// Governor is scaling_governor ("performance", "powersave", "schedutil").
	Governor string `json:"governor"`
	// Boost is whether turbo/boost is allowed: cpufreq/boost, or the
	// inverse of intel_pstate/no_turbo. nil when neither file exists.
	Boost *bool `json:"boost"`
}

// THP is the transparent-huge-pages mode.
type THP struct {
	// Enabled is the selected value of enabled ("always", "madvise", "never").
	Enabled string `json:"enabled"`
	// Defrag is the selected value of defrag.
	Defrag string `json:"defrag"`
	// EnabledRaw and DefragRaw are the files' text ("always [madvise] never").
	EnabledRaw string `json:"enabled_raw,omitempty"`
	DefragRaw  string `json:"defrag_raw,omitempty"`
}

// VulnerabilitiesDir is where the kernel lists CPU vulnerabilities.
const VulnerabilitiesDir = "/sys/devices/system/cpu/vulnerabilities"

// VulnerabilitiesError says why the vulnerabilities directory could not be
// read ("" when it was read, or is simply absent): a directory that exists
// but is unreadable (permission denied, a link out of a --root tree) must
// not be reported as absent.
func (s *Snapshot) VulnerabilitiesError() string {
	for _, u := range s.Unreadable {
		if u.Path == VulnerabilitiesDir {
			return u.Error
		}
	}
	return ""
}

// CollectAs is CollectContext with a live snapshot stamped with version,
// the version of the sectax that took it (SectaxVersion): the one stamp of
// the host's environment and of a lab guest's.
func CollectAs(ctx context.Context, root, version string) (*Snapshot, error) {
	s, err := CollectContext(ctx, root)
	if err == nil && s.Live {
		s.SectaxVersion = version
	}
	return s, err
}
