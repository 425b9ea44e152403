package mitigation

import (
	"testing"
)

// TestPredictFiles: the per-file answer every command reads (advise
// --target, decide's options, the alternatives, verify, the corpus
// replay), for the classes issue 46 names, each with the kernel code it
// follows.
func TestPredictFiles(t *testing.T) {
	kb := mustKB(t)
	unknown := map[string]string{"srbds": "Unknown: Dependent on hypervisor status", "gather_data_sampling": "Unknown: Dependent on hypervisor status", "meltdown": "Mitigation: PTI"}
	cases := []struct {
		name, release, vendor, cmdline string
		lines                          map[string]string
		want                           map[string]string
		source                         string
	}{
		{"a guest's unknown SRBDS turned off reads Vulnerable", "7.2.13", "GenuineIntel", "mitigations=off", unknown,
			map[string]string{"srbds": "becomes vulnerable", "gather_data_sampling": "stays unknown", "meltdown": ClassGivenUp},
			"bugs.c srbds_select_mitigation (6.16+): AUTO and !should_mitigate_vuln → SRBDS_MITIGATION_OFF before the hypervisor check; gds_select_mitigation: hypervisor first"},
		{"before 6.16 the hypervisor comes first", "6.12.117", "GenuineIntel", "mitigations=off", unknown,
			map[string]string{"srbds": "stays unknown", "gather_data_sampling": "stays unknown"},
			"bugs.c 6.12 srbds_select_mitigation: X86_FEATURE_HYPERVISOR → SRBDS_MITIGATION_HYPERVISOR, return, before cpu_mitigations_off()"},
		{"mitigations=off pti=on keeps PTI on 6.1", "6.1.158", "GenuineIntel", "mitigations=off pti=on", modelIntel,
			map[string]string{"meltdown": ClassKept, "mds": ClassGivenUp},
			"arch/x86/mm/pti.c 6.1 pti_check_boottime_disable: pti=on → goto enable before the nopti/cpu_mitigations_off() check"},
		{"mitigations=off pti=on drops PTI on 6.12", "6.12.117", "GenuineIntel", "mitigations=off pti=on", modelIntel,
			map[string]string{"meltdown": ClassGivenUp},
			"the corpus's 6.12.117 boots of mitigations=off pti=on"},
		{"mitigations=off pti=on keeps PTI from 6.17", "7.2.13", "GenuineIntel", "mitigations=off pti=on", modelIntel,
			map[string]string{"meltdown": ClassKept},
			"pti.c 6.17 pti_check_boottime_disable: only PTI_AUTO asks should_mitigate_vuln"},
	}
	for _, c := range cases {
		m := modelMachine("x86", c.release, c.lines)
		m.Vendor = c.vendor
		fs, _ := kb.PredictFiles(m, ParseCmdline(c.cmdline).Params)
		got := map[string]FilePrediction{}
		for _, f := range fs {
			got[f.Name] = f
		}
		for file, want := range c.want {
			if g := got[file].Change(); g != want {
				t.Errorf("%s: %s on %s: %s is %q (rule %q, by %q), want %q — %s", c.name, c.cmdline, c.release, file, g, got[file].Rule, got[file].By, want, c.source)
			}
		}
	}
}
