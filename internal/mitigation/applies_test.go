package mitigation

import (
	"strings"
	"testing"
)

func TestApplies(t *testing.T) {
	kb := mustKB(t)
	alt := func(id string) KBAlternative {
		for _, a := range kb.Alternatives {
			if a.ID == id {
				return a
			}
		}
		t.Fatalf("no alternative %s", id)
		return KBAlternative{}
	}
	intelWSL := Machine{Arch: "x86", Vendor: "GenuineIntel", Family: "6", Release: "6.18.40.1-microsoft-standard-WSL2", Platform: "wsl",
		Lines: map[string]string{"spectre_v2": "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop",
			"retbleed": "Mitigation: Enhanced IBRS"}}
	amd := Machine{Arch: "x86", Vendor: "AuthenticAMD", Family: "25", Release: "6.17.4", Platform: "native",
		Lines: map[string]string{"spectre_v2": "Mitigation: Retpolines; IBPB: conditional; STIBP: always-on; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected", "retbleed": "Not affected"}}
	broadwell := Machine{Arch: "x86", Vendor: "GenuineIntel", Family: "6", Release: "6.8.0", Platform: "native",
		Lines: map[string]string{"retbleed": "Not affected"}}
	skylake := Machine{Arch: "x86", Vendor: "GenuineIntel", Family: "6", Release: "6.8.0", Platform: "native",
		Lines: map[string]string{"retbleed": "Mitigation: IBRS"}}
	arm := Machine{Arch: "arm64", Vendor: "ARM", Family: "8", Release: "6.8.0", Platform: "vm"}
	for _, tc := range []struct {
		id   string
		m    Machine
		want bool
		why  string
	}{
		{"bhi-vmexit-only", intelWSL, true, ""},
		{"bhi-vmexit-only", amd, false, "GenuineIntel"},
		{"retbleed-stuff", amd, false, "GenuineIntel"},
		{"retbleed-stuff", broadwell, false, "not affected by retbleed"},
		{"retbleed-stuff", skylake, true, ""},
		{"retbleed-stuff", intelWSL, false, "Mitigation: IBRS"},
		{"retbleed-stuff", arm, false, "x86 only"},
		{"no-guest-vectors", skylake, false, "6.17"},
		// An x86-only alternative on another architecture with an older
		// kernel: the architecture is the reason, not the version.
		{"no-guest-vectors", arm, false, "for x86 only; this machine is arm64"},
		{"bhi-vmexit-only", arm, false, "for x86 only"},
	} {
		ok, why := alt(tc.id).Applies(tc.m)
		if ok != tc.want || !strings.Contains(why, tc.why) {
			t.Errorf("%s on %+v: %v %q, want %v containing %q", tc.id, tc.m.Vendor, ok, why, tc.want, tc.why)
		}
	}
	tsa, _ := kb.LookupVulnerability("tsa")
	if ok, _ := tsa.Applies(arm); ok {
		t.Error("tsa applies to arm64")
	}
}

// TestForArch: the attack-vector controls exist on x86 only; elsewhere the
// kernel keeps the default.
func TestForArch(t *testing.T) {
	m := Classify(ParseCmdline("mitigations=auto,no_guest_host,no_guest_guest").Params)
	if mode, _ := m.ForArch("x86").Mode(); mode != ModeCustom {
		t.Errorf("x86: mode %s, want custom", mode)
	}
	mode, why := m.ForArch("arm64").Mode()
	if mode != ModeOn || !strings.Contains(why, "x86 only") || strings.Contains(why, "attack vectors off") {
		t.Errorf("arm64: mode %s (%s), want on with the x86-only reason", mode, why)
	}
	if mode, _ := Classify(ParseCmdline("mitigations=off").Params).ForArch("s390").Mode(); mode != ModeOff {
		t.Errorf("s390 mitigations=off: mode %s", mode)
	}
}
