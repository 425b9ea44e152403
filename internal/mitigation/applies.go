package mitigation

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// KBApplies says which machines a knowledge-base alternative is for. An
// empty field matches every machine. Applies is the one place that
// decides it.
type KBApplies struct {
	// Arch are the architectures (x86, arm64, arm, powerpc, s390, riscv).
	Arch []string `json:"arch,omitempty"`
	// Vendors are x86 vendor_id values (GenuineIntel, AuthenticAMD,
	// HygonGenuine).
	Vendors []string `json:"vendors,omitempty"`
	// Families are CPU families as /proc/cpuinfo prints them (decimal on
	// x86), single ("6") or ranges ("23-25").
	Families []string `json:"families,omitempty"`
	// Platforms are wsl (a WSL 2 guest), vm (another virtual machine) and
	// native.
	Platforms []string `json:"platforms,omitempty"`
	// Lines are facts the machine's vulnerability files must show: the
	// file must exist and not say "Not affected", and contain the text
	// when it is not empty ({"retbleed": "Mitigation: IBRS"}).
	Lines map[string]string `json:"lines,omitempty"`
}

// Machine is what applicability is decided on: the facts sysinfo
// collects, in the words of the knowledge base.
type Machine struct {
	Arch     string
	Vendor   string
	Family   string
	Release  string
	Platform string // wsl, vm or native
	// Lines are the vulnerability files by name (raw text); nil when they
	// could not be read, which matches no Lines condition.
	Lines map[string]string
	// Vulns are the same files parsed, in the kernel's order (the model's
	// input; NewMachine fills both).
	Vulns []Vulnerability
	// NoGlobalSwitch is true for a kernel built without
	// CONFIG_CPU_MITIGATIONS: it ignores mitigations=.
	NoGlobalSwitch bool
	// Version is the text of /proc/version ("" when unread): where the
	// release hides the stable level (StableHidden), Debian writes it
	// there ("Debian 6.1.158-1"), and the model reads it (Kernel).
	Version string
}

// Kernel is the version the model's rules are keyed on: the release, or
// where the release hides the stable level (Debian's "6.1.0-57-amd64")
// the upstream version /proc/version names ("6.1.192").
func (m Machine) Kernel() string {
	if StableHidden(m.Release) {
		if v := StableFromVersion(m.Release, m.Version); v != "" {
			return v
		}
	}
	return m.Release
}

// StableUnknown reports whether the model cannot tell the stable level of
// the machine's kernel: the release hides it and /proc/version does not
// say it (Ubuntu's "6.17.0-5-generic").
func (m Machine) StableUnknown() bool {
	return StableHidden(m.Release) && StableFromVersion(m.Release, m.Version) == ""
}

// kbArches and kbPlatforms are the values an applicability may name.
var (
	kbArches    = []string{"x86", "arm64", "arm", "powerpc", "s390", "riscv", "loongarch"}
	kbPlatforms = []string{"wsl", "vm", "native"}
)

// Applies reports whether an alternative is for the machine, and when it
// is not, why (one phrase: "needs GenuineIntel; this CPU is
// AuthenticAMD"). A fact the machine lacks (an unknown vendor) does not
// match a condition on it.
func (a KBAlternative) Applies(m Machine) (bool, string) {
	// The architecture first: an alternative that exists only on x86 is
	// "for x86 only" on arm64, s390x, POWER and RISC-V whatever their
	// kernel's version (no kernel there would parse it).
	if arch := (KBApplies{Arch: a.Applicability.Arch}); len(arch.Arch) > 0 {
		if ok, why := arch.Match(m); !ok {
			return false, why
		}
	}
	if !kbAtLeast(m.Release, a.MinKernel, true) {
		return false, fmt.Sprintf("needs Linux %s+; this kernel is %s", a.MinKernel, m.Release)
	}
	return a.Applicability.Match(m)
}

// Match reports whether the conditions hold for the machine, and why not.
func (c KBApplies) Match(m Machine) (bool, string) {
	if len(c.Arch) > 0 && !slices.Contains(c.Arch, m.Arch) {
		return false, fmt.Sprintf("for %s only; this machine is %s", strings.Join(c.Arch, ", "), orUnknownArch(m.Arch))
	}
	if len(c.Vendors) > 0 && !slices.Contains(c.Vendors, m.Vendor) {
		return false, fmt.Sprintf("for %s CPUs only; this CPU is %s", strings.Join(c.Vendors, ", "), orUnknownArch(m.Vendor))
	}
	if len(c.Families) > 0 && !slices.ContainsFunc(c.Families, func(r string) bool { return familyIn(m.Family, r) }) {
		return false, fmt.Sprintf("for CPU family %s only; this CPU is family %s", strings.Join(c.Families, ", "), orUnknownArch(m.Family))
	}
	if len(c.Platforms) > 0 && !slices.Contains(c.Platforms, m.Platform) {
		return false, fmt.Sprintf("for %s only; this machine is %s", strings.Join(c.Platforms, ", "), orUnknownArch(m.Platform))
	}
	names := make([]string, 0, len(c.Lines))
	for n := range c.Lines {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		raw, ok := m.Lines[n]
		switch {
		case !ok:
			return false, n + " is not reported on this machine"
		case kbVerdict(raw) == "not_affected":
			return false, "this CPU is not affected by " + n
		case c.Lines[n] != "" && !strings.Contains(raw, c.Lines[n]):
			return false, fmt.Sprintf("for machines whose %s shows %q; this one shows %q", n, c.Lines[n], strings.TrimSpace(raw))
		}
	}
	return true, ""
}

func orUnknownArch(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// familyIn reports whether a family ("6", "25", "0x19") is in a range
// ("6", "23-25").
func familyIn(family, r string) bool {
	f, err := strconv.ParseInt(strings.TrimSpace(family), 0, 32)
	if err != nil {
		return false
	}
	lo, hi, isRange := strings.Cut(r, "-")
	l, err1 := strconv.ParseInt(lo, 0, 32)
	h := l
	var err2 error
	if isRange {
		h, err2 = strconv.ParseInt(hi, 0, 32)
	}
	return err1 == nil && err2 == nil && f >= l && f <= h
}

// validate checks the names an applicability uses.
func (c KBApplies) validate(where string, vulns map[string]int) []error {
	var errs []error
	for _, a := range c.Arch {
		if !slices.Contains(kbArches, a) {
			errs = append(errs, fmt.Errorf("knowledge base: %s: arch %q is not one of %v", where, a, kbArches))
		}
	}
	for _, p := range c.Platforms {
		if !slices.Contains(kbPlatforms, p) {
			errs = append(errs, fmt.Errorf("knowledge base: %s: platform %q is not one of %v", where, p, kbPlatforms))
		}
	}
	for _, r := range c.Families {
		if !familyIn(strings.SplitN(r, "-", 2)[0], r) {
			errs = append(errs, fmt.Errorf("knowledge base: %s: family range %q does not parse", where, r))
		}
	}
	for n := range c.Lines {
		if _, ok := vulns[n]; !ok {
			errs = append(errs, fmt.Errorf("knowledge base: %s: lines names unknown vulnerability %q", where, n))
		}
	}
	return errs
}

// Applies reports whether a vulnerability entry is for the machine: its
// architectures and the kernel that added the file (Since), through the
// same Match as the alternatives.
func (e KBEntry) Applies(m Machine) (bool, string) {
	if !kbAtLeast(m.Release, e.Since, true) {
		return false, fmt.Sprintf("the file came with Linux %s; this kernel is %s", e.Since, m.Release)
	}
	return KBApplies{Arch: e.Arch}.Match(m)
}
