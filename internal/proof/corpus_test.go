package proof

import (
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
)

// The corpus's command lines cover what the brief of issue 37 names: every
// per-bug value the model has a rule for, alone and after mitigations=off,
// and no KVM module parameter (no KVM in the guest).
func TestCorpusBugLines(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	lines := CorpusBugLines(kb)
	for _, want := range []string{
		"spectre_v2=retpoline", "mitigations=off spectre_v2=retpoline", "retbleed=stuff", "spec_rstack_overflow=ibpb",
		"indirect_target_selection=on", "mitigations=off indirect_target_selection=on", "vmscape=ibpb", "mitigations=off vmscape=force",
		"nopti", "nospectre_v2", "mitigations=off tsa=user",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("CorpusBugLines lacks %q", want)
		}
	}
	if slices.Contains(lines, "mitigations=off nospectre_v2") {
		t.Error("CorpusBugLines boots an off switch after mitigations=off, which says nothing new")
	}
	for _, l := range lines {
		if strings.Contains(l, "kvm") || strings.Contains(l, "no_rfi_flush") {
			t.Errorf("CorpusBugLines has %q, which an x86 guest without KVM does not parse", l)
		}
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(lines)))); n != len(lines) {
		t.Errorf("CorpusBugLines repeats lines: %d distinct of %d", n, len(lines))
	}
}

// decide's options are in the kernel's own syntax: the attack vectors on
// 7.2, the per-bug parameters on 6.1.
func TestCorpusLines(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"meltdown":                  "Mitigation: PTI",
		"spectre_v2":                "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Retpoline",
		"mds":                       "Mitigation: Clear CPU buffers; SMT vulnerable",
		"l1tf":                      "Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable",
		"retbleed":                  "Mitigation: IBRS",
		"indirect_target_selection": "Mitigation: Aligned branch/return thunks",
		"spectre_v1":                "Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
	}
	o := mitigation.Observation{Release: "7.2.13+deb14-amd64", Arch: "x86", Vendor: "GenuineIntel", Family: "6", Platform: "vm", Files: files}
	got := CorpusLines(kb, o.Machine())
	if !slices.Contains(got, "mitigations=auto,no_guest_host,no_guest_guest") {
		t.Errorf("7.2: %q, want decide's no-guest in the vector syntax", got)
	}
	o.Release = "6.1.0-57-amd64"
	for _, l := range CorpusLines(kb, o.Machine()) {
		if strings.Contains(l, "no_guest") {
			t.Errorf("6.1: %q in the vector syntax, which 6.1 does not parse", l)
		}
	}
}
