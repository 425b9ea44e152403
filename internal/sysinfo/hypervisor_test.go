//go:build linux

package sysinfo

import (
	"slices"
	"strings"
	"testing"
)

// TestHypervisorFromCPUID: the development machine's case (a PVM guest
// whose unprivileged CPUID reaches the bhyve host below PVM: brand "Oxide
// Virtual Turin-like Processor" where the kernel printed "AMD EPYC") names
// bhyve as the outer layer only; KVM with Hyper-V enlightenments is KVM; a
// plain guest is named by its signature.
func TestHypervisorFromCPUID(t *testing.T) {
	for _, tt := range []struct {
		name      string
		p         cpuidInfo
		model     string
		want      string
		wantOuter bool
	}{
		{"PVM guest on bhyve", cpuidInfo{Present: true, Leaves: []cpuidLeaf{{0x40000000, "bhyve bhyve"}}, Brand: "Oxide Virtual Turin-like Processor"},
			"AMD EPYC", "bhyve", true},
		{"KVM with Hyper-V enlightenments", cpuidInfo{Present: true, Leaves: []cpuidLeaf{{0x40000000, "Microsoft Hv"}, {0x40000100, "KVMKVMKVM"}},
			Brand: "AMD EPYC 7763 64-Core Processor"}, "AMD EPYC 7763 64-Core Processor", "KVM", false},
		{"Hyper-V", cpuidInfo{Present: true, Leaves: []cpuidLeaf{{0x40000000, "Microsoft Hv"}}, Brand: "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz"},
			"Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz", "Hyper-V", false},
		{"no signature", cpuidInfo{Present: true}, "", "", false},
	} {
		name, evidence, outer := HypervisorFromCPUID(tt.p, tt.model)
		if name != tt.want || outer != tt.wantOuter || len(evidence) == 0 {
			t.Errorf("%s: %q outer %v evidence %q, want %q outer %v", tt.name, name, outer, evidence, tt.want, tt.wantOuter)
		}
	}
}

// TestCloudFromRelease reads the cloud flavours of real kernel releases.
func TestCloudFromRelease(t *testing.T) {
	for release, want := range map[string][2]string{
		"6.8.0-1021-azure":                 {"Azure", "Hyper-V"},
		"5.15.0-1057-azure-fde":            {"Azure", "Hyper-V"},
		"6.8.0-1036-aws":                   {"AWS", ""},
		"6.8.0-1025-gcp":                   {"Google Cloud", "KVM"},
		"6.8.0-1013-oracle":                {"Oracle Cloud", ""},
		"6.8.0-85-generic":                 {"", ""},
		"6.1.0-40-cloud-arm64":             {"", ""},
		"6.6.87.2-microsoft-standard-WSL2": {"", ""},
		"5.4.0-awsome":                     {"", ""},
	} {
		p, v := CloudFromRelease(release)
		if p != want[0] || v != want[1] {
			t.Errorf("CloudFromRelease(%q) = %q %q, want %q %q", release, p, v, want[0], want[1])
		}
	}
}

// TestHypervisorLive: on the running machine, a CPUID answered below the
// kernel's own hypervisor never names it (this development machine's
// bhyve is the layer under its PVM), and a guest's evidence is shown.
func TestHypervisorLive(t *testing.T) {
	s, err := Collect("/")
	if err != nil {
		t.Fatal(err)
	}
	h := s.Hypervisor
	if h.Outer != "" && h.Vendor == h.Outer && h.Source == "cpuid" {
		t.Errorf("the outer layer %q named the kernel's hypervisor", h.Outer)
	}
	if h.Guest && len(h.Evidence) == 0 {
		t.Error("a guest without evidence")
	}
	if slices.Contains(s.Cmdline.InitArgs, "--firecracker-init") && h.Platform != "Firecracker" &&
		!strings.Contains(strings.Join(h.Evidence, "\n"), "--firecracker-init") {
		t.Errorf("--firecracker-init not seen: %+v", h)
	}
}

// FuzzPlatformText: the readers of a release's flavour, a machine name and
// CPUID's strings take any text without panic, and name only what they
// know.
func FuzzPlatformText(f *testing.F) {
	for _, s := range []string{"6.8.0-1021-azure", "6.8.0-1036-aws", "loongarch64", "armv7l", "bhyve bhyve", "Microsoft Hv", "", "-azure-", "\x00\xff"} {
		f.Add(s, s)
	}
	known := map[string]bool{"": true, "x86": true, "arm64": true, "arm": true, "powerpc": true, "s390": true, "riscv": true, "loongarch": true}
	f.Fuzz(func(t *testing.T, a, b string) {
		if p, v := CloudFromRelease(a); p == "" && v != "" {
			t.Errorf("CloudFromRelease(%q): vendor %q without a platform", a, v)
		}
		if arch := ArchFromMachine(a); !known[arch] {
			t.Errorf("ArchFromMachine(%q) = %q", a, arch)
		}
		name, ev, _ := HypervisorFromCPUID(cpuidInfo{Present: true, Leaves: []cpuidLeaf{{0x40000000, a}}, Brand: b}, a)
		if len(ev) == 0 || (name != "" && name != HypervisorFromSignature(a)) {
			t.Errorf("HypervisorFromCPUID(%q, %q) = %q %q", a, b, name, ev)
		}
	})
}
