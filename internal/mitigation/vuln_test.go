package mitigation

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseVulnerability(t *testing.T) {
	type f = map[string]string
	tests := []struct {
		name, file, raw string
		want            Vulnerability
	}{
		{"not affected", "mds", "Not affected\n",
			Vulnerability{State: NotAffected}},
		{"this machine spectre_v2", "spectre_v2",
			"Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; PBRSB-eIBRS: SW sequence; BHI: Vulnerable\n",
			Vulnerability{Partial: true, State: Mitigated, Mitigation: "Enhanced / Automatic IBRS",
				Fields: f{"IBPB": "conditional", "PBRSB-eIBRS": "SW sequence", "BHI": "Vulnerable"}}},
		{"retpolines with flags", "spectre_v2",
			"Mitigation: Retpolines; IBPB: conditional; IBRS_FW; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
			Vulnerability{State: Mitigated, Mitigation: "Retpolines",
				Fields: f{"IBPB": "conditional", "IBRS_FW": "", "STIBP": "disabled", "RSB filling": "",
					"PBRSB-eIBRS": "Not affected", "BHI": "Not affected"}}},
		{"BHI value with KVM part", "spectre_v2",
			"Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop\n",
			Vulnerability{State: Mitigated, Mitigation: "Enhanced / Automatic IBRS",
				Fields: f{"IBPB": "conditional", "RSB filling": "", "PBRSB-eIBRS": "SW sequence", "BHI": "SW loop, KVM: SW loop"}}},
		{"bare vulnerable with fields", "spectre_v2",
			"Vulnerable; IBPB: disabled; STIBP: disabled; PBRSB-eIBRS: Vulnerable; BHI: Vulnerable\n",
			Vulnerability{State: Vulnerable,
				Fields: f{"IBPB": "disabled", "STIBP": "disabled", "PBRSB-eIBRS": "Vulnerable", "BHI": "Vulnerable"}}},
		{"module tail", "spectre_v2",
			"Mitigation: Retpolines; STIBP: disabled; RSB filling - vulnerable module loaded\n",
			Vulnerability{Partial: true, State: Mitigated, Mitigation: "Retpolines",
				Fields: f{"STIBP": "disabled", "RSB filling": "", "vulnerable_module": "loaded"}}},
		{"legacy comma separators", "spectre_v2",
			"Mitigation: Full generic retpoline, IBPB: conditional, IBRS_FW, STIBP: conditional, RSB filling\n",
			Vulnerability{State: Mitigated, Mitigation: "Full generic retpoline",
				Fields: f{"IBPB": "conditional", "IBRS_FW": "", "STIBP": "conditional", "RSB filling": ""}}},
		{"legacy vulnerable comma", "spectre_v2", "Vulnerable, IBPB: disabled, STIBP: disabled",
			Vulnerability{State: Vulnerable, Fields: f{"IBPB": "disabled", "STIBP": "disabled"}}},
		{"semicolon inside free text", "spectre_v1",
			"Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers\n",
			Vulnerability{State: Vulnerable, Mitigation: "__user pointer sanitization and usercopy barriers only; no swapgs barriers"}},
		{"colon inside detail", "tsa", "Mitigation: Clear CPU buffers: user/kernel boundary\n",
			Vulnerability{Partial: true, State: Mitigated, Mitigation: "Clear CPU buffers: user/kernel boundary"}},
		{"mds guest SMT", "mds", "Mitigation: Clear CPU buffers; SMT Host state unknown\n",
			Vulnerability{State: Mitigated, Mitigation: "Clear CPU buffers", Fields: f{"SMT": "Host state unknown"}}},
		{"no microcode then SMT", "mmio_stale_data",
			"Vulnerable: Clear CPU buffers attempted, no microcode; SMT vulnerable\n",
			Vulnerability{State: Vulnerable, Mitigation: "Clear CPU buffers attempted, no microcode", Fields: f{"SMT": "vulnerable"}}},
		{"l1tf VMX with SMT", "l1tf", "Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable\n",
			Vulnerability{Partial: true, State: Mitigated, Mitigation: "PTE Inversion", Fields: f{"VMX": "conditional cache flushes", "SMT": "vulnerable"},
				Note: "PTE inversion is always on; mitigations=off does not remove it"}},
		{"l1tf bare", "l1tf", "Mitigation: PTE Inversion\n",
			Vulnerability{State: Mitigated, Mitigation: "PTE Inversion", Note: "PTE inversion is always on; mitigations=off does not remove it"}},
		{"retbleed SMT suffix", "retbleed", "Mitigation: untrained return thunk; SMT enabled with STIBP protection\n",
			Vulnerability{State: Mitigated, Mitigation: "untrained return thunk", Fields: f{"SMT": "enabled with STIBP protection"}}},
		{"ITS quirk", "indirect_target_selection", "Mitigation: Vulnerable, KVM: Not affected\n",
			Vulnerability{State: Vulnerable, Mitigation: "Vulnerable, KVM: Not affected"}},
		{"SMT disabled counts as mitigated", "spec_rstack_overflow", "Mitigation: SMT disabled\n",
			Vulnerability{State: Mitigated, Mitigation: "SMT disabled"}},
		{"itlb KVM scope", "itlb_multihit", "KVM: Mitigation: Split huge pages\n",
			Vulnerability{State: Mitigated, Scope: "kvm", Mitigation: "Split huge pages"}},
		{"itlb KVM vulnerable", "itlb_multihit", "KVM: Vulnerable\n",
			Vulnerability{State: Vulnerable, Scope: "kvm"}},
		{"processor vulnerable", "itlb_multihit", "Processor vulnerable\n",
			Vulnerability{State: Vulnerable}},
		{"unknown hypervisor", "srbds", "Unknown: Dependent on hypervisor status\n",
			Vulnerability{State: Unknown, Mitigation: "Dependent on hypervisor status"}},
		{"no trailing newline", "old_microcode", "Unknown: running under hypervisor",
			Vulnerability{State: Unknown, Mitigation: "running under hypervisor"}},
		{"old BHI wording", "spectre_v2",
			"Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: Vulnerable (Syscall hardening enabled)",
			Vulnerability{Partial: true, State: Mitigated, Mitigation: "Enhanced / Automatic IBRS",
				Fields: f{"IBPB": "conditional", "RSB filling": "", "PBRSB-eIBRS": "SW sequence", "BHI": "Vulnerable (Syscall hardening enabled)"}}},
		{"garbage", "x", "whatever this is\n",
			Vulnerability{State: Unknown, Mitigation: "whatever this is"}},
		{"empty", "x", "", Vulnerability{State: Unknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseVulnerability(tt.file, tt.raw)
			tt.want.Name = tt.file
			tt.want.Raw = strings.TrimRight(tt.raw, "\n")
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ParseVulnerability(%q) mismatch (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

func TestCount(t *testing.T) {
	vs := []Vulnerability{
		ParseVulnerability("a", "Not affected"), ParseVulnerability("b", "Mitigation: PTI"),
		ParseVulnerability("c", "Vulnerable"), ParseVulnerability("d", "Unknown: x"),
		ParseVulnerability("e", "Not affected"),
	}
	want := Counts{Mitigated: 1, Vulnerable: 1, NotAffected: 2, Unknown: 1}
	if diff := cmp.Diff(want, Count(vs)); diff != "" {
		t.Error(diff)
	}
}

// FuzzParseVulnerability checks that no line panics, that Raw keeps the
// text, and that the state is always one of the four.
func FuzzParseVulnerability(f *testing.F) {
	for _, s := range []string{
		"Not affected\n",
		"Mitigation: Retpolines; IBPB: conditional; IBRS_FW; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected - vulnerable module loaded",
		"Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers",
		"Mitigation: Full generic retpoline, IBPB: conditional, IBRS_FW, STIBP: conditional, RSB filling",
		"KVM: Mitigation: Split huge pages",
		"Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable",
		"Unknown: running under hypervisor",
		";,; SMT ",
	} {
		f.Add("spectre_v2", s)
	}
	f.Fuzz(func(t *testing.T, name, raw string) {
		v := ParseVulnerability(name, raw)
		switch v.State {
		case NotAffected, Mitigated, Vulnerable, Unknown:
		default:
			t.Fatalf("state %q", v.State)
		}
		if !strings.HasPrefix(raw, v.Raw) {
			t.Fatalf("Raw %q is not a prefix of the input %q", v.Raw, raw)
		}
		if utf8.ValidString(raw) && !utf8.ValidString(v.Mitigation) {
			t.Fatalf("detail %q is not valid UTF-8 though the input was", v.Mitigation)
		}
		if len(v.Mitigation) > len(raw) {
			t.Fatalf("detail longer than input")
		}
	})
}
