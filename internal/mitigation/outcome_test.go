package mitigation

import (
	"slices"
	"testing"
)

// TestPredictFiles: the per-file answer every command reads (advise
// --target, decide's options, the alternatives, verify, the corpus
// replay), for the classes issue 46 names, each with the kernel code it
// follows.
func TestPredictFiles(t *testing.T) {
	kb := mustKB(t)
	unknown := map[string]string{"srbds": "Unknown: Dependent on hypervisor status", "gather_data_sampling": "Unknown: Dependent on hypervisor status", "meltdown": "Mitigation: PTI", "old_microcode": "Unknown: running under hypervisor"}
	zen2SMT := map[string]string{
		"retbleed":             "Mitigation: untrained return thunk; SMT enabled with STIBP protection",
		"spec_rstack_overflow": "Mitigation: Safe RET",
		"spectre_v2":           "Mitigation: Retpolines; IBPB: conditional; STIBP: always-on; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
	}
	l1tfHost := map[string]string{
		"l1tf": "Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable",
		"mds":  "Mitigation: Clear CPU buffers; SMT vulnerable",
	}
	guestNoIBPB := map[string]string{
		"spectre_v2":                "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
		"vmscape":                   "Not affected",
		"indirect_target_selection": "Not affected",
	}
	hostIBPB := map[string]string{
		"spectre_v2": "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S",
		"vmscape":    "Not affected",
	}
	cases := []struct {
		name, release, vendor, cmdline string
		lines                          map[string]string
		want                           map[string]string
		source                         string
	}{
		{"a guest's unknown SRBDS turned off reads Vulnerable", "7.2.13", "GenuineIntel", "mitigations=off", unknown,
			map[string]string{"srbds": "becomes vulnerable", "gather_data_sampling": "stays unknown", "meltdown": ClassGivenUp, "old_microcode": "stays unknown"},
			"bugs.c srbds_select_mitigation (6.16+): AUTO and !should_mitigate_vuln → SRBDS_MITIGATION_OFF before the hypervisor check; gds_select_mitigation: hypervisor first"},
		{"tsx= does not choose SRBDS's mitigation: mitigations=off still turns it off", "7.3", "GenuineIntel", "mitigations=off tsx=auto", unknown,
			map[string]string{"srbds": "becomes vulnerable", "meltdown": ClassGivenUp},
			"bugs.c 6.16+ srbds_select_mitigation: AUTO asks should_mitigate_vuln() before X86_FEATURE_RTM; the corpus's 7.3 Skylake-Client boots of mitigations=off tsx=auto and tsx=off"},
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
		{"two mitigations= from 6.17: off's cleared vectors stay cleared", "7.2.13", "GenuineIntel", "mitigations=off mitigations=auto", modelIntel,
			map[string]string{"meltdown": ClassGivenUp, "mds": ClassGivenUp},
			"kernel/cpu.c 6.17 mitigations_parse_cmdline: off clears attack_vectors[], auto sets none again; the corpus's 7.2.13 boots"},
		{"two mitigations= before 6.17: the last accepted wins", "6.12.117", "GenuineIntel", "mitigations=off mitigations=auto", modelIntel,
			map[string]string{"meltdown": ClassKept, "mds": ClassKept},
			"kernel/cpu.c 6.12 mitigations_parse_cmdline: strcmp, each accepted value overwrites cpu_mitigations"},
		{"an unknown item ends the list: later vectors stay on", "7.2.13", "GenuineIntel", "mitigations=auto,bogus,no_guest_host", modelIntel,
			map[string]string{"vmscape": ClassKept, "meltdown": ClassKept},
			"kernel/cpu.c 6.17 mitigations_parse_cmdline: strsep, 'Unsupported mitigations options' and break at the first unknown item"},
		{"retbleed=ibpb after mitigations=off turns IBRS on (6.17+)", "7.2.13", "GenuineIntel", "mitigations=off retbleed=ibpb", modelIntel,
			map[string]string{"spectre_v2": ClassWeakened, "retbleed": ClassKept, "meltdown": ClassGivenUp},
			"bugs.c spectre_v2_update_mitigation: CMD_AUTO, not eIBRS, RETBLEED bug, retbleed IBPB, IBRS, Intel → SPECTRE_V2_IBRS"},
		{"retbleed=unret after mitigations=off turns IBRS on (6.17+)", "7.2.13", "GenuineIntel", "mitigations=off retbleed=unret", modelIntel,
			map[string]string{"spectre_v2": ClassWeakened, "retbleed": ClassKept},
			"bugs.c spectre_v2_update_mitigation: retbleed UNRET is neither NONE nor STUFF"},
		{"retbleed=ibpb after mitigations=off before 6.17: both go", "6.12.117", "GenuineIntel", "mitigations=off retbleed=ibpb", modelIntel,
			map[string]string{"spectre_v2": ClassGivenUp, "retbleed": ClassGivenUp},
			"bugs.c 6.12 retbleed_select_mitigation: cpu_mitigations_off() → RETBLEED_MITIGATION_NONE first"},
		{"retbleed=ibpb with spectre_v2=off: no IBRS", "7.2.13", "GenuineIntel", "mitigations=off retbleed=ibpb spectre_v2=off", modelIntel,
			map[string]string{"spectre_v2": ClassGivenUp},
			"bugs.c spectre_v2_update_mitigation asks spectre_v2_cmd == SPECTRE_V2_CMD_AUTO only"},
		{"no_cross_thread leaves retbleed's SMT vulnerable", "7.2.13", "AuthenticAMD", "mitigations=auto,no_cross_thread", zen2SMT,
			map[string]string{"retbleed": ClassWeakened, "spec_rstack_overflow": ClassKept},
			"bugs.c retbleed_show_state: 'SMT vulnerable' unless spectre_v2_user_stibp is strict; spectre_v2_user_select_mitigation: no STIBP without cross_thread"},
		{"mitigations=off retbleed=unret keeps retbleed without STIBP", "7.2.13", "AuthenticAMD", "mitigations=off retbleed=unret", zen2SMT,
			map[string]string{"retbleed": ClassWeakened},
			"bugs.c 6.17: retbleed=unret overrides off; spectre_v2_user AUTO under off → no STIBP"},
		{"retbleed's SMT disabled stays", "7.2.13", "AuthenticAMD", "mitigations=auto,no_cross_thread", map[string]string{"retbleed": "Mitigation: untrained return thunk; SMT disabled"},
			map[string]string{"retbleed": ClassKept},
			"bugs.c retbleed_show_state: !sched_smt_active() → 'SMT disabled' whatever STIBP is"},
		{"mitigations=off l1tf=flush leaves l1tf's line (6.17+)", "7.2.13", "GenuineIntel", "mitigations=off l1tf=flush", l1tfHost,
			map[string]string{"l1tf": ClassKept, "mds": ClassGivenUp},
			"bugs.c 6.17 l1tf_select_mitigation: l1tf_mitigation != AUTO → return before should_mitigate_vuln()"},
		{"mitigations=off l1tf=flush before 6.17: VMX goes", "6.12.117", "GenuineIntel", "mitigations=off l1tf=flush", l1tfHost,
			map[string]string{"l1tf": ClassWeakened},
			"bugs.c 6.12 l1tf_select_mitigation: cpu_mitigations_off() → L1TF_MITIGATION_OFF whatever l1tf= chose"},
		{"mitigations=off alone weakens l1tf's VMX flush", "7.2.13", "GenuineIntel", "mitigations=off", l1tfHost,
			map[string]string{"l1tf": ClassWeakened},
			"bugs.c l1tf_select_mitigation: AUTO and !should_mitigate_vuln → OFF; KVM's flush AUTO → never"},
		{"spec_rstack_overflow=off on Zen 1/2 without SMT stays SMT disabled (6.16+)", "7.2.13", "AuthenticAMD", "spec_rstack_overflow=off", map[string]string{"spec_rstack_overflow": "Mitigation: SMT disabled"},
			map[string]string{"spec_rstack_overflow": ClassKept},
			"bugs.c srso_select_mitigation: a value that is not AUTO reaches the x86 < 0x19 && !cpu_smt_possible() check → SRSO_MITIGATION_NOSMT"},
		{"mitigations=off on Zen 1/2 without SMT gives SRSO up", "7.2.13", "AuthenticAMD", "mitigations=off", map[string]string{"spec_rstack_overflow": "Mitigation: SMT disabled"},
			map[string]string{"spec_rstack_overflow": ClassGivenUp},
			"bugs.c srso_select_mitigation: AUTO and no vector → SRSO_MITIGATION_NONE, return before the NOSMT check"},
		{"spec_rstack_overflow=off before 6.16 gives SRSO up", "6.12.117", "AuthenticAMD", "spec_rstack_overflow=off", map[string]string{"spec_rstack_overflow": "Mitigation: SMT disabled"},
			map[string]string{"spec_rstack_overflow": ClassGivenUp},
			"bugs.c 6.12 srso_select_mitigation: srso_cmd == SRSO_CMD_OFF returns first"},
		{"vmscape=force without IBPB: Vulnerable", "6.1.158", "GenuineIntel", "vmscape=force", guestNoIBPB,
			map[string]string{"vmscape": "becomes vulnerable"},
			"bugs.c vmscape_parse_cmdline: force → setup_force_cpu_bug; vmscape_select_mitigation: !X86_FEATURE_IBPB → NONE"},
		{"vmscape=force with IBPB: mitigated", "7.2.13", "GenuineIntel", "vmscape=force", hostIBPB,
			map[string]string{"vmscape": "becomes mitigated"},
			"bugs.c vmscape_select_mitigation: AUTO, should_mitigate_vuln → IBPB before exit to userspace"},
		{"vmscape=force under mitigations=off: Vulnerable", "7.2.13", "GenuineIntel", "mitigations=off vmscape=force", hostIBPB,
			map[string]string{"vmscape": "becomes vulnerable"},
			"bugs.c vmscape_parse_cmdline leaves AUTO; should_mitigate_vuln is false under mitigations=off"},
		{"indirect_target_selection=force on a retpoline AMD: aligned thunks", "7.2.13", "AuthenticAMD", "indirect_target_selection=force", guestNoIBPB,
			map[string]string{"indirect_target_selection": "becomes mitigated"},
			"bugs.c its_parse_cmdline: force → ITS_CMD_ON, setup_force_cpu_bug; its_select_mitigation: aligned thunks"},
		{"indirect_target_selection=force after mitigations=off: Vulnerable", "7.2.13", "AuthenticAMD", "mitigations=off indirect_target_selection=force", guestNoIBPB,
			map[string]string{"indirect_target_selection": "becomes vulnerable"},
			"bugs.c its_update_mitigation: spectre_v2 NONE → ITS off"},
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

// TestParseTargetRepeatedGlobal: a target with two mitigations= is the
// model's to predict, not refused; both reach the prediction in order.
func TestParseTargetRepeatedGlobal(t *testing.T) {
	tg, err := ParseTarget("mitigations=off mitigations=auto,no_guest_host")
	if err != nil {
		t.Fatalf("two mitigations= refused: %v", err)
	}
	if got := Format(tg.Params); got != "mitigations=off mitigations=auto,no_guest_host" {
		t.Errorf("target params %q, want both tokens in order", got)
	}
	if _, err := ParseTarget("spectre_v2=off spectre_v2=auto"); err == nil {
		t.Error("a per-bug parameter given twice with different values is accepted")
	}
}

// TestRunningVectorsOffFolds: what a running line with two mitigations=
// drops is what the kernel keeps dropped, not the last token's.
func TestRunningVectorsOffFolds(t *testing.T) {
	kb := mustKB(t)
	m := modelMachine("x86", "7.2.13", modelIntel)
	if got := kb.RunningVectorsOff(m, "mitigations=auto,no_guest_host mitigations=auto"); !slices.Equal(got, []string{"guest_host"}) {
		t.Errorf("RunningVectorsOff = %v, want [guest_host] (kernel/cpu.c mitigations_parse_cmdline only clears vectors)", got)
	}
	if got := kb.RunningVectorsOff(m, "mitigations=auto,bogus,no_guest_host"); len(got) != 0 {
		t.Errorf("RunningVectorsOff = %v, want none: the kernel stops at bogus", got)
	}
}

// TestPredictedText: the text PredictFiles predicts where it predicts one,
// "" where a selection may print another mitigation's text.
func TestPredictedText(t *testing.T) {
	kb := mustKB(t)
	m := modelMachine("x86", "7.2.13", map[string]string{
		"spec_store_bypass":         "Mitigation: Speculative Store Bypass disabled via prctl",
		"indirect_target_selection": "Mitigation: Aligned branch/return thunks",
		"retbleed":                  "Vulnerable",
		"srbds":                     "Unknown: Dependent on hypervisor status",
		"l1tf":                      "Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable",
		"meltdown":                  "Mitigation: PTI",
	})
	m.Vendor = "GenuineIntel"
	for _, c := range []struct{ cmdline, file, want string }{
		{"quiet", "meltdown", "Mitigation: PTI"},
		{"spec_store_bypass_disable=seccomp", "spec_store_bypass", "Mitigation: Speculative Store Bypass disabled via prctl and seccomp"},
		{"retbleed=stuff", "indirect_target_selection", ""},
		{"retbleed=stuff", "meltdown", "Mitigation: PTI"},
		{"mitigations=off", "srbds", "Vulnerable"},
		{"mitigations=off", "l1tf", "Mitigation: PTE Inversion; VMX: vulnerable"},
		{"mitigations=off", "meltdown", ""},
		{"nosmt", "l1tf", ""},
	} {
		fs, _ := kb.PredictFiles(m, ParseCmdline(c.cmdline).Params)
		for _, f := range fs {
			if f.Name == c.file && f.To != c.want {
				t.Errorf("%s: %s reads %q, want %q", c.cmdline, c.file, f.To, c.want)
			}
		}
	}
}

// SRSO's ibpb and ibpb-vmexit replace "safe RET" with their own string
// where the microcode is there (the corpus's 6.1 boot of EPYC-Milan:
// "Mitigation: safe RET" → "Mitigation: IBPB"); without it, or on a line
// that reads "SMT disabled", no text is predicted.
func TestPredictedTextSRSO(t *testing.T) {
	kb := mustKB(t)
	for _, c := range []struct{ line, cmdline, want string }{
		{"Mitigation: safe RET", "spec_rstack_overflow=ibpb", "Mitigation: IBPB"},
		{"Mitigation: safe RET", "spec_rstack_overflow=ibpb-vmexit", "Mitigation: IBPB on VMEXIT only"},
		{"Mitigation: safe RET", "mitigations=off spec_rstack_overflow=ibpb", ""},
		{"Mitigation: safe RET, no microcode", "spec_rstack_overflow=ibpb", ""},
		{"Mitigation: SMT disabled", "spec_rstack_overflow=ibpb", ""},
	} {
		m := modelMachine("x86", "6.1.0-57-amd64", map[string]string{"spec_rstack_overflow": c.line})
		m.Vendor = "AuthenticAMD"
		fs, _ := kb.PredictFiles(m, ParseCmdline(c.cmdline).Params)
		if len(fs) != 1 || fs[0].To != c.want {
			t.Errorf("%q with %s: %+v, want the text %q", c.line, c.cmdline, fs, c.want)
		}
	}
}

// retbleed=stuff under retpolines reads "Mitigation: Stuffing" and turns a
// mitigated ITS line into "Retpolines, Stuffing RSB" (the corpus's 7.2
// Skylake-Server and 6.12 EPYC-v1 boots); not on 6.1 (no call depth
// tracking), not under eIBRS, not after mitigations=off before 6.17.
func TestPredictedTextStuff(t *testing.T) {
	kb := mustKB(t)
	retp := "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Retpoline"
	for _, c := range []struct{ release, spectreV2, cmdline, retbleed, its string }{
		{"7.2.13", retp, "retbleed=stuff", "Mitigation: Stuffing", "Mitigation: Retpolines, Stuffing RSB"},
		{"6.12.117", retp, "retbleed=stuff", "Mitigation: Stuffing", "Mitigation: Retpolines, Stuffing RSB"},
		{"6.1.0-57-amd64", retp, "retbleed=stuff", "", ""},
		{"7.2.13", "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S", "retbleed=stuff", "", ""},
		{"6.12.117", retp, "mitigations=off retbleed=stuff", "", ""},
		{"7.2.13", retp, "retbleed=stuff spectre_v2=retpoline", "", ""},
		// indirect_target_selection=stuff: the same texts (RuleITSStuff).
		{"7.3", retp, "indirect_target_selection=stuff", "Mitigation: Stuffing", "Mitigation: Retpolines, Stuffing RSB"},
		{"6.12.117", retp, "indirect_target_selection=stuff", "Mitigation: Stuffing", "Mitigation: Retpolines, Stuffing RSB"},
		{"7.3", retp, "mitigations=off indirect_target_selection=stuff", "", ""},
	} {
		m := modelMachine("x86", c.release, map[string]string{
			"retbleed": "Vulnerable", "spectre_v2": c.spectreV2, "indirect_target_selection": "Mitigation: Aligned branch/return thunks",
		})
		m.Vendor = "GenuineIntel"
		fs, _ := kb.PredictFiles(m, ParseCmdline(c.cmdline).Params)
		for _, f := range fs {
			want := map[string]string{"retbleed": c.retbleed, "indirect_target_selection": c.its}[f.Name]
			if f.Name != "spectre_v2" && f.To != want {
				t.Errorf("%s, %s, %s: %s reads %q, want %q", c.release, c.spectreV2[:20], c.cmdline, f.Name, f.To, want)
			}
		}
	}
}

// retbleed=force on an Intel CPU not affected, spectre_v2 in retpoline
// mode: the bug is set and nothing mitigates it ("Vulnerable"; the
// corpus's 6.12 Icelake-Server boot), though the line's PBRSB-eIBRS
// sub-field names IBRS; under eIBRS it takes spectre_v2's method.
func TestRetbleedForceRetpoline(t *testing.T) {
	kb := mustKB(t)
	for _, c := range []struct {
		spectreV2 string
		want      State
	}{
		{"Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Retpoline", Vulnerable},
		{"Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S", Mitigated},
	} {
		m := modelMachine("x86", "6.12.117", map[string]string{"retbleed": "Not affected", "spectre_v2": c.spectreV2})
		m.Vendor = "GenuineIntel"
		fs, _ := kb.PredictFiles(m, ParseCmdline("retbleed=force").Params)
		for _, f := range fs {
			if f.Name == "retbleed" && f.Becomes != c.want {
				t.Errorf("%s: retbleed becomes %q, want %q", c.spectreV2[:30], f.Becomes, c.want)
			}
		}
	}
}

// retbleed=force and retbleed=stuff came with 6.2: 6.1's
// retbleed_parse_cmdline logs them as unknown, so a line "Not affected"
// stays so and a vulnerable one is not stuffed (the corpus's 6.1.0-57
// EPYC-Milan boots); 6.12 takes both. The warning that a kernel may
// ignore them comes from the same dating (Knowledge.Since).
func TestRetbleedValuesSince(t *testing.T) {
	kb := mustKB(t)
	retpoline := "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Retpoline"
	for _, c := range []struct {
		release, cmdline, from string
		changed                bool
	}{
		{"6.1.0-57-amd64", "retbleed=force", "Not affected", false},
		{"6.1.0-57-amd64", "retbleed=force,nosmt", "Not affected", false},
		{"6.1.0-57-amd64", "retbleed=stuff", "Vulnerable", false},
		{"6.12.117", "retbleed=force", "Not affected", true},
		{"6.12.117", "retbleed=stuff", "Vulnerable", true},
	} {
		m := modelMachine("x86", c.release, map[string]string{"retbleed": c.from, "spectre_v2": retpoline})
		m.Vendor = "GenuineIntel"
		p := ParseCmdline(c.cmdline).Params
		fs, _ := kb.PredictFiles(m, p)
		for _, f := range fs {
			if f.Name == "retbleed" && (f.Rule == RuleRetbleedCmd) != c.changed {
				t.Errorf("%s %s: retbleed %+v, want changed=%v", c.release, c.cmdline, f.OffState, c.changed)
			}
		}
		if got := KernelBelow(c.release, kb.Since(p[0])); got == c.changed {
			t.Errorf("%s %s: Since %q, kernel below it %v", c.release, c.cmdline, kb.Since(p[0]), got)
		}
	}
}

// nosmt=force on Zen 1/2 (family below 0x19): srso_select_mitigation's
// "Zen1/2 with SMT off aren't vulnerable to SRSO" (RuleSRSONoSMT). From
// 6.16 without microcode too, unless the vectors left AUTO off; before,
// only with the microcode and not under mitigations=off (6.1's bugs.c).
func TestSRSONoSMTForce(t *testing.T) {
	kb := mustKB(t)
	const safeRETNoUcode, safeRET = "Vulnerable: Safe RET, no microcode", "Mitigation: Safe RET"
	for _, c := range []struct {
		release, family, line, cmdline string
		want                           string // the predicted text, "" for none
		becomes                        State
	}{
		{"7.3.0", "23", safeRETNoUcode, "nosmt=force", "Mitigation: SMT disabled", Mitigated}, // the corpus's EPYC-Rome-v1 boot
		{"7.3.0", "23", safeRETNoUcode, "nosmt", "", ""},
		{"7.3.0", "25", safeRETNoUcode, "nosmt=force", "", ""},
		{"7.3.0", "23", safeRETNoUcode, "mitigations=off nosmt=force", "", ""},
		{"7.3.0", "23", safeRETNoUcode, "mitigations=off spec_rstack_overflow=off nosmt=force", "Mitigation: SMT disabled", Mitigated},
		{"7.3.0", "23", safeRET, "nosmt=force", "Mitigation: SMT disabled", ""},
		{"6.12.117", "23", safeRETNoUcode, "nosmt=force", "", ""},
		{"6.12.117", "23", safeRET, "nosmt=force", "Mitigation: SMT disabled", ""},
		{"6.12.117", "23", safeRET, "mitigations=off nosmt=force", "", ""},
		{"6.12.117", "23", safeRET, "mitigations=auto,no_guest_host nosmt=force", "Mitigation: SMT disabled", ""}, // 6.12 rejects the vector list: auto
	} {
		m := modelMachine("x86", c.release, map[string]string{"spec_rstack_overflow": c.line})
		m.Vendor, m.Family = "AuthenticAMD", c.family
		fs, _ := kb.PredictFiles(m, ParseCmdline(c.cmdline).Params)
		for _, f := range fs {
			if f.Name != "spec_rstack_overflow" {
				continue
			}
			nosmt := f.Rule == RuleSRSONoSMT
			if nosmt != (c.want != "") || nosmt && (f.To != c.want || f.Becomes != c.becomes) {
				t.Errorf("%s family %s %q, %s: %+v (text %q), want %q becoming %q", c.release, c.family, c.line, c.cmdline, f.OffState, f.To, c.want, c.becomes)
			}
		}
	}
}

// retbleed=stuff on AMD: 6.12 takes it ("Mitigation: Stuffing", the
// corpus's 6.12 EPYC-v1 boot); from 6.16 retbleed_select_mitigation says
// "retbleed=stuff only supported for Intel CPUs" and falls back to AUTO,
// so the line stays (7.3 EPYC-Rome-v1) and mitigations=off turns it off.
func TestRetbleedStuffIntelOnly(t *testing.T) {
	kb := mustKB(t)
	const unret = "Mitigation: untrained return thunk; SMT vulnerable"
	for _, c := range []struct {
		release, cmdline, want string
		off                    bool
	}{
		{"6.12.117", "retbleed=stuff", "Mitigation: Stuffing", false},
		{"7.3.0", "retbleed=stuff", unret, false},
		{"7.3.0", "retbleed=auto,stuff,nosmt", "", false}, // nosmt may change "SMT vulnerable": no text
		{"7.3.0", "mitigations=off retbleed=stuff", "", true},
		{"7.3.0", "mitigations=off retbleed=unret", "", false}, // kept, its text not predicted
	} {
		m := modelMachine("x86", c.release, map[string]string{"retbleed": unret,
			"spectre_v2": "Mitigation: Retpolines; IBPB: conditional; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected"})
		m.Vendor, m.Family = "AuthenticAMD", "23"
		fs, _ := kb.PredictFiles(m, ParseCmdline(c.cmdline).Params)
		for _, f := range fs {
			if f.Name == "retbleed" && (f.To != c.want || f.Off != c.off) {
				t.Errorf("%s %s: retbleed %+v text %q, want %q off=%v", c.release, c.cmdline, f.OffState, f.To, c.want, c.off)
			}
		}
	}
}
