package advise

import (
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// ubuntu617 is an Ubuntu 6.17.0-5-generic machine booted with
// mitigations=auto,no_guest_host whose vmscape stays mitigated: right on
// 6.17.0–6.17.6 (vmscape not under attack-vector control before the stable
// patch of 6.17.7), wrong after; the release hides which.
func ubuntu617() *sysinfo.Snapshot {
	s := &sysinfo.Snapshot{}
	s.Kernel.Release = "6.17.0-5-generic"
	s.Kernel.Version = "#5-Ubuntu SMP PREEMPT_DYNAMIC Mon Sep 22 10:00:33 UTC 2025"
	s.CPU.Arch, s.CPU.Vendor, s.CPU.Family = "x86", "GenuineIntel", "6"
	s.Cmdline.Raw = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 mitigations=auto,no_guest_host"
	s.Vulnerabilities = []mitigation.Vulnerability{
		mitigation.ParseVulnerability("vmscape", "Mitigation: IBPB before exit to userspace"),
		mitigation.ParseVulnerability("spectre_v1", "Mitigation: usercopy/swapgs barriers and __user pointer sanitization"),
	}
	return s
}

// TestVerifyUncertainStableLevel: verify on a kernel whose release hides
// the stable level does not call vmscape still mitigated NOT MET (the
// level explains it either way); it says so, with --prove, in a check.
// advise says the same sentence among its warnings.
func TestVerifyUncertainStableLevel(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	s := ubuntu617()
	if u := kb.Uncertain(s.Machine()); !slices.Equal(u, []string{"vmscape"}) {
		t.Fatalf("uncertain %v, want [vmscape]", u)
	}
	tg, err := mitigation.ParseTarget("mitigations=auto,no_guest_host")
	if err != nil {
		t.Fatal(err)
	}
	v := Verify(s, Platform{Name: "native"}, tg, kb)
	if !v.Holds || len(v.StillMitigated) != 0 {
		t.Errorf("holds %v, still mitigated %+v: want met, vmscape uncertain", v.Holds, v.StillMitigated)
	}
	i := slices.IndexFunc(v.Checks, func(c Check) bool { return c.Name == "model" })
	if i < 0 || !strings.Contains(v.Checks[i].Detail, "vmscape") || !strings.Contains(v.Checks[i].Detail, "--prove") {
		t.Errorf("checks %+v: want a model check naming vmscape and --prove", v.Checks)
	}
	// Debian says its stable level in /proc/version: no doubt, and vmscape
	// mitigated under no_guest_host on 6.17.9 is NOT MET.
	deb := ubuntu617()
	deb.Kernel.Release, deb.Kernel.Version = "6.17.0-1-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.17.9-1 (2025-11-20)"
	if v := Verify(deb, Platform{Name: "native"}, tg, kb); v.Holds || !slices.ContainsFunc(v.StillMitigated, func(f FileState) bool { return f.Name == "vmscape" }) {
		t.Errorf("Debian 6.17.9: holds %v, still mitigated %+v: want vmscape NOT MET", v.Holds, v.StillMitigated)
	}
	a := For(s, Platform{Name: "native"}, tg, kb)
	if !slices.ContainsFunc(a.Warnings, func(w string) bool {
		return strings.Contains(w, "hides its stable level") && strings.Contains(w, "--prove")
	}) {
		t.Errorf("advise warnings %q: want the stable-level sentence", a.Warnings)
	}
}
