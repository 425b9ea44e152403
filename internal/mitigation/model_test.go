package mitigation

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// modelIntel is an Intel machine affected by every VERW bug (a Cascade
// Lake-like part with TSX on), modelAMD a Zen 4-like one.
var (
	modelIntel = map[string]string{
		"meltdown":               "Mitigation: PTI",
		"spectre_v1":             "Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
		"spectre_v2":             "Mitigation: Retpolines; IBPB: conditional; STIBP: conditional; RSB filling; PBRSB-eIBRS: Not affected; BHI: SW loop, KVM: SW loop",
		"spec_store_bypass":      "Mitigation: Speculative Store Bypass disabled via prctl",
		"retbleed":               "Mitigation: IBRS",
		"srbds":                  "Mitigation: Microcode",
		"mds":                    "Mitigation: Clear CPU buffers; SMT vulnerable",
		"tsx_async_abort":        "Mitigation: Clear CPU buffers; SMT vulnerable",
		"mmio_stale_data":        "Mitigation: Clear CPU buffers; SMT vulnerable",
		"reg_file_data_sampling": "Mitigation: Clear Register File",
		"gather_data_sampling":   "Mitigation: Microcode",
		"vmscape":                "Mitigation: IBPB before exit to userspace",
		"tsa":                    "Not affected",
	}
	// modelITS is an Intel part with eIBRS affected by ITS (Cascade Lake).
	modelITS = map[string]string{
		"spectre_v2":                "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop",
		"retbleed":                  "Mitigation: Enhanced IBRS",
		"indirect_target_selection": "Mitigation: Aligned branch/return thunks",
		"mds":                       "Not affected",
	}
	modelAMDTSA = map[string]string{"tsa": "Mitigation: Clear CPU buffers", "vmscape": "Mitigation: IBPB before exit to userspace"}
	modelAMD    = map[string]string{
		"meltdown":             "Not affected",
		"spectre_v1":           "Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
		"spectre_v2":           "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; STIBP: always-on; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
		"spec_store_bypass":    "Mitigation: Speculative Store Bypass disabled via prctl",
		"spec_rstack_overflow": "Mitigation: Safe RET",
		"mds":                  "Not affected",
		"vmscape":              "Mitigation: IBPB before exit to userspace",
		"tsa":                  "Mitigation: Clear CPU buffers",
	}
)

func modelMachine(arch, release string, lines map[string]string) Machine {
	vendor := ""
	if strings.Contains(lines["retbleed"], "IBRS") || lines["mds"] != "" && lines["mds"] != "Not affected" {
		vendor = "GenuineIntel"
	}
	var vulns []Vulnerability
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		vulns = append(vulns, ParseVulnerability(n, lines[n]))
	}
	return NewMachine(arch, vendor, "", release, "native", vulns)
}

// TestModel runs the model over command lines × machines; every expected
// state cites the kernel code it follows (RuleSources has the files).
// want maps a file to "off", "kept", "on" (nothing aims at it) or
// "partial"; rule, when set, is the rule that must decide.
func TestModel(t *testing.T) {
	kb, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ state, rule string }
	cases := []struct {
		name, arch, release, cmdline string
		lines                        map[string]string
		noSwitch                     bool
		want                         map[string]want
		source                       string
	}{
		{"retbleed=auto defers", "x86", "6.18.3", "mitigations=off retbleed=auto", modelIntel, false,
			map[string]want{"retbleed": {"off", RuleDefers}, "spectre_v2": {"off", RuleGlobalOff}},
			"bugs.c retbleed_parse_cmdline: auto → RETBLEED_MITIGATION_AUTO; retbleed_select_mitigation: !should_mitigate_vuln(X86_BUG_RETBLEED) → NONE"},
		{"retbleed=auto,nosmt defers", "x86", "7.1.0", "mitigations=off retbleed=auto,nosmt", modelIntel, false,
			map[string]want{"retbleed": {"off", RuleDefers}},
			"bugs.c retbleed_parse_cmdline: nosmt sets retbleed_nosmt only"},
		{"spectre_v2=auto defers", "x86", "6.18.3", "mitigations=off spectre_v2=auto", modelIntel, false,
			map[string]want{"spectre_v2": {"off", RuleDefers}},
			"bugs.c spectre_v2_select_mitigation: SPECTRE_V2_CMD_AUTO → !should_mitigate_vuln(X86_BUG_SPECTRE_V2) → break"},
		{"spectre_v2=retpoline overrides", "x86", "6.17.4", "mitigations=off spectre_v2=retpoline", modelIntel, false,
			map[string]want{"spectre_v2": {"kept", RuleBugOverrides}, "meltdown": {"off", RuleGlobalOff}},
			"bugs.c 6.17 spectre_v2_parse_cmdline has no cpu_mitigations_off(); CMD_RETPOLINE selects retpoline"},
		{"ssb=auto defers", "x86", "6.18.3", "mitigations=off spec_store_bypass_disable=auto", modelIntel, false,
			map[string]want{"spec_store_bypass": {"off", RuleDefers}},
			"bugs.c 6.18 ssb_parse_cmdline: auto → SPEC_STORE_BYPASS_AUTO; ssb_select_mitigation: should_mitigate_vuln"},
		{"ssb=prctl overrides on 6.18", "x86", "6.18.3", "mitigations=off spec_store_bypass_disable=prctl", modelIntel, false,
			map[string]want{"spec_store_bypass": {"kept", RuleBugOverrides}},
			"bugs.c 6.18 ssb_parse_cmdline (early_param): prctl → SPEC_STORE_BYPASS_PRCTL, not AUTO"},
		{"ssb=prctl does not override on 6.17", "x86", "6.17.4", "mitigations=off spec_store_bypass_disable=prctl", modelIntel, false,
			map[string]want{"spec_store_bypass": {"off", RuleGlobalOffWins}},
			"bugs.c 6.17 ssb_parse_cmdline: nospec_store_bypass_disable || cpu_mitigations_off() → CMD_NONE"},
		{"srbds=on defers", "x86", "6.18.3", "mitigations=off srbds=on", modelIntel, false,
			map[string]want{"srbds": {"off", RuleDefers}},
			"bugs.c srbds_parse_cmdline: srbds_off = !strcmp(str, \"off\") only; srbds_select_mitigation: AUTO → should_mitigate_vuln"},
		{"vmscape=force defers", "x86", "6.18.3", "mitigations=off vmscape=force", modelIntel, false,
			map[string]want{"vmscape": {"off", RuleDefers}},
			"bugs.c vmscape_parse_cmdline: force → setup_force_cpu_bug, VMSCAPE_MITIGATION_AUTO; vmscape_select_mitigation: should_mitigate_vuln"},
		{"no_guest_host with vmscape=force", "x86", "6.18.3", "mitigations=auto,no_guest_host vmscape=force", modelIntel, false,
			map[string]want{"vmscape": {"off", RuleVectors}, "retbleed": {"on", ""}, "mds": {"on", ""}},
			"bugs.c should_mitigate_vuln: X86_BUG_VMSCAPE → guest_host only; retbleed also user_kernel"},
		{"vectors: user_kernel and guest_host off", "x86", "6.18.3", "mitigations=auto,no_user_kernel,no_guest_host", modelIntel, false,
			map[string]want{"spectre_v2": {"off", RuleVectors}, "meltdown": {"off", RuleVectors}, "mds": {"on", ""}, "spec_store_bypass": {"on", ""}},
			"bugs.c should_mitigate_vuln: SPECTRE_V2 is user_kernel || guest_host; MDS any of four; SSB user_user; pti.c PTI_AUTO && !user_kernel"},
		// Issue 37: the full version, the update functions, the parser.
		{"vmscape before 6.17.7: the vectors do not reach it", "x86", "6.17.0", "mitigations=auto,no_guest_host,no_guest_guest", modelIntel, false,
			map[string]want{"vmscape": {"on", ""}},
			"bugs.c v6.17 vmscape_select_mitigation: cpu_mitigations_off() || !bug → NONE; AUTO → IBPB_EXIT_TO_USER (no should_mitigate_vuln until the 6.17.7 stable patch)"},
		{"vmscape before 6.17.7: mitigations=off wins", "x86", "6.17.6", "mitigations=off vmscape=ibpb", modelIntel, false,
			map[string]want{"vmscape": {"off", RuleGlobalOffWins}},
			"bugs.c v6.17 vmscape_select_mitigation: cpu_mitigations_off() first"},
		{"vmscape from 6.17.7: the vectors", "x86", "6.17.7", "mitigations=auto,no_guest_host,no_guest_guest", modelIntel, false,
			map[string]want{"vmscape": {"off", RuleVectors}},
			"bugs.c v6.17.7 vmscape_select_mitigation: AUTO → should_mitigate_vuln(X86_BUG_VMSCAPE) (guest_host)"},
		{"vmscape from 6.17.7: an explicit value overrides", "x86", "6.17.7", "mitigations=off vmscape=ibpb", modelIntel, false,
			map[string]want{"vmscape": {"kept", RuleBugOverrides}},
			"bugs.c v6.17.7 vmscape_select_mitigation: no cpu_mitigations_off(); IBPB is not AUTO"},
		{"its follows spectre_v2 off", "x86", "6.18.3", "mitigations=off indirect_target_selection=on", modelITS, false,
			map[string]want{"indirect_target_selection": {"off", RuleITSFollows}, "spectre_v2": {"off", RuleGlobalOff}},
			"bugs.c its_update_mitigation: spectre_v2_enabled == SPECTRE_V2_NONE → ITS_MITIGATION_OFF"},
		{"its kept with spectre_v2 kept", "x86", "6.18.3", "mitigations=off spectre_v2=eibrs indirect_target_selection=on", modelITS, false,
			map[string]want{"indirect_target_selection": {"kept", RuleBugOverrides}, "spectre_v2": {"kept", RuleBugOverrides}},
			"bugs.c its_update_mitigation: SPECTRE_V2_EIBRS → default: ITS stays"},
		{"its off with an LFENCE spectre_v2", "x86", "6.18.3", "spectre_v2=eibrs,lfence", modelITS, false,
			map[string]want{"indirect_target_selection": {"off", RuleITSFollows}},
			"bugs.c its_update_mitigation: SPECTRE_V2_EIBRS_LFENCE → ITS_MITIGATION_OFF"},
		{"its goes with nospectre_v2", "x86", "6.12.0", "nospectre_v2", modelITS, false,
			map[string]want{"indirect_target_selection": {"off", ""}},
			"bugs.c its_update_mitigation (its_select_mitigation before 6.16): SPECTRE_V2_NONE"},
		{"retbleed's eIBRS goes with spectre_v2", "x86", "6.8.0", "spectre_v2=off", modelITS, false,
			map[string]want{"retbleed": {"off", RuleRetbleedFollows}},
			"bugs.c retbleed_select_mitigation (retbleed_update_mitigation 6.16+): Intel takes spectre_v2's IBRS/eIBRS; NONE leaves retbleed NONE"},
		{"off then auto: the vectors stay off", "x86", "6.18.3", "mitigations=off mitigations=auto", modelIntel, false,
			map[string]want{"spectre_v2": {"off", RuleVectors}, "mds": {"off", RuleVectors}, "meltdown": {"off", RuleVectors}},
			"kernel/cpu.c mitigations_parse_cmdline: off memsets attack_vectors; nothing sets them again"},
		{"off then auto before 6.17: the last wins", "x86", "6.8.0", "mitigations=off mitigations=auto", modelIntel, false,
			map[string]want{"spectre_v2": {"on", ""}, "mds": {"on", ""}},
			"kernel/cpu.c before 6.17: each token sets cpu_mitigations, nothing else"},
		{"off then a bogus value: still off", "x86", "6.8.0", "mitigations=off mitigations=bogus", modelIntel, false,
			map[string]want{"spectre_v2": {"off", RuleGlobalOff}},
			"kernel/cpu.c: an unsupported value leaves cpu_mitigations alone"},
		{"parsing stops at a bogus item", "x86", "6.18.3", "mitigations=auto,no_user_kernel,bogus,no_guest_host", modelIntel, false,
			map[string]want{"meltdown": {"off", RuleVectors}, "spectre_v2": {"partial", RuleVectorSubField}},
			"kernel/cpu.c mitigations_parse_cmdline: default: \"Unsupported mitigations options\", return 0 (no_guest_host is never read: spectre_v2 stays, only BHI's syscall half goes with user_kernel)"},
		{"off with a bogus item is off", "x86", "6.18.3", "mitigations=off,bogus", modelIntel, false,
			map[string]want{"spectre_v2": {"off", RuleGlobalOff}},
			"kernel/cpu.c mitigations_parse_global_opt: strncmp prefix sets CPU_MITIGATIONS_OFF before the items are read"},
		{"GDS under a hypervisor is decided first", "x86", "7.2.13", "mitigations=off", map[string]string{"gather_data_sampling": "Unknown: Dependent on hypervisor status", "srbds": "Unknown: Dependent on hypervisor status"}, false,
			map[string]want{"gather_data_sampling": {"on", RuleHypervisorFirst}, "srbds": {"off", RuleGlobalOff}},
			"bugs.c gds_select_mitigation: X86_FEATURE_HYPERVISOR → GDS_MITIGATION_HYPERVISOR, return; srbds_select_mitigation reads AUTO first (corpus: Skylake-Client-v1 under TCG)"},
		{"riscv: mitigations=off reaches GhostWrite", "riscv", "6.14.0", "mitigations=off", map[string]string{"ghostwrite": "Mitigation: xtheadvector disabled"}, false,
			map[string]want{"ghostwrite": {"off", RuleGlobalOff}},
			"arch/riscv/kernel/bugs.c ghostwrite_enable_mitigation: !cpu_mitigations_off()"},
		{"vectors ignored before 6.17", "x86", "6.8.0", "mitigations=auto,no_user_kernel,no_guest_host", modelIntel, false,
			map[string]want{"spectre_v2": {"on", ""}},
			"kernel/cpu.c before 6.17: mitigations_parse_cmdline knows off/auto/auto,nosmt only"},
		{"no_cross_thread drops STIBP", "x86", "6.18.3", "mitigations=auto,no_cross_thread", modelIntel, false,
			map[string]want{"spectre_v2": {"partial", RuleVectorSubField}, "gather_data_sampling": {"on", ""}, "mds": {"on", ""}},
			"bugs.c 6.18.2:1911-1917 spectre_v2_user_select_mitigation: no STIBP when smt_mitigations == OFF; 428-432 GDS needs every vector and cross_thread off"},
		{"no_cross_thread beside an explicit spectre_v2_user", "x86", "6.18.3", "mitigations=auto,no_cross_thread spectre_v2_user=on", modelIntel, false,
			map[string]want{"spectre_v2": {"on", ""}},
			"bugs.c 6.18.2:1907-1910 SPECTRE_V2_USER_CMD_FORCE: STIBP strict, the vectors are not asked"},
		{"no_guest_host keeps eIBRS's BHI_DIS_S only while guest_host", "x86", "6.18.3", "mitigations=auto,no_user_kernel", map[string]string{"spectre_v2": "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; STIBP: disabled; RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S"}, false,
			map[string]want{"spectre_v2": {"on", ""}},
			"bugs.c 6.18.2 bhi_select_mitigation: guest_host alone → VMEXIT_ONLY; bhi_apply_mitigation uses BHI_DIS_S whenever not OFF"},
		{"all five vectors off turn GDS off", "x86", "6.18.3", "mitigations=auto,no_user_kernel,no_user_user,no_guest_host,no_guest_guest,no_cross_thread", modelIntel, false,
			map[string]want{"gather_data_sampling": {"off", RuleVectors}, "spectre_v2": {"off", RuleVectors}},
			"bugs.c 6.18.2:428-432"},
		{"four vectors off keep GDS for cross_thread", "x86", "6.18.3", "mitigations=auto,no_user_kernel,no_user_user,no_guest_host,no_guest_guest", modelIntel, false,
			map[string]want{"gather_data_sampling": {"on", ""}, "mds": {"off", RuleVectors}},
			"bugs.c 6.18.2:428-432: smt_mitigations != OFF keeps GDS"},
		{"srso safe RET needs user_kernel or guest_host", "x86", "6.18.3", "mitigations=auto,no_guest_host", modelAMD, false,
			map[string]want{"spec_rstack_overflow": {"on", ""}},
			"bugs.c 6.18.2:3056-3059 srso_select_mitigation: Safe RET while guest_host || user_kernel"},
		{"srso IBPB on VM exit serves guest_host alone", "x86", "6.18.3", "mitigations=auto,no_guest_host", map[string]string{"spec_rstack_overflow": "Mitigation: IBPB on VMEXIT only"}, false,
			map[string]want{"spec_rstack_overflow": {"off", RuleVectors}},
			"bugs.c 6.18.2:3056-3062, 3093-3098: with SRSO_USER_KERNEL_NO, user_kernel needs nothing; without guest_host AUTO is MICROCODE (Vulnerable: Microcode, no safe RET)"},
		{"srso reduced speculation serves guest_host alone", "x86", "6.18.3", "mitigations=auto,no_user_kernel", map[string]string{"spec_rstack_overflow": "Mitigation: Reduced Speculation"}, false,
			map[string]want{"spec_rstack_overflow": {"on", ""}},
			"bugs.c 6.18.2:3100-3105"},
		{"tsa narrows to the user/kernel mode without the guest vectors", "x86", "6.18.3", "mitigations=auto,no_guest_host,no_guest_guest", modelAMDTSA, false,
			map[string]want{"tsa": {"partial", RuleVectorSubField}},
			"bugs.c 6.18.2:1722-1739 tsa_select_mitigation: FULL needs one user and one guest vector"},
		{"tsa's VM mode serves the guest vectors alone", "x86", "6.18.3", "mitigations=auto,no_guest_host,no_guest_guest", map[string]string{"tsa": "Mitigation: Clear CPU buffers: VM"}, false,
			map[string]want{"tsa": {"off", RuleVectors}},
			"bugs.c 6.18.2:1731-1735"},
		{"tsa=on keeps the full mode", "x86", "6.18.3", "mitigations=auto,no_guest_host,no_guest_guest tsa=on", modelAMDTSA, false,
			map[string]want{"tsa": {"on", ""}},
			"bugs.c tsa_parse_cmdline: on → FULL, the vectors are not asked"},
		{"mds=full keeps every VERW user on 6.18", "x86", "6.18.3", "mitigations=off mds=full", modelIntel, false,
			map[string]want{"mds": {"kept", RuleBugOverrides}, "tsx_async_abort": {"kept", RuleVERW}, "mmio_stale_data": {"kept", RuleVERW}, "reg_file_data_sampling": {"kept", RuleVERW}, "spectre_v2": {"off", RuleGlobalOff}},
			"bugs.c mds_select_mitigation: FULL sets verw_clear_cpu_buf_mitigation_selected; taa/mmio/rfds_update_mitigation turn VERW on"},
		{"mitigations=off wins before 6.17", "x86", "6.8.0", "mitigations=off mds=full", modelIntel, false,
			map[string]want{"mds": {"off", RuleGlobalOffWins}, "tsx_async_abort": {"off", RuleGlobalOff}},
			"bugs.c 6.8 mds_select_mitigation: !boot_cpu_has_bug || cpu_mitigations_off() → OFF; md_clear_update_mitigation returns under cpu_mitigations_off()"},
		{"mmio=full on 6.17 does not override", "x86", "6.17.4", "mitigations=off mmio_stale_data=full", modelIntel, false,
			map[string]want{"mmio_stale_data": {"off", RuleGlobalOffWins}, "mds": {"off", RuleGlobalOff}},
			"bugs.c 6.17 mmio_select_mitigation: !boot_cpu_has_bug || cpu_mitigations_off() → OFF"},
		{"mmio=full on 6.18 keeps the VERW users", "x86", "6.18.3", "mitigations=off mmio_stale_data=full", modelIntel, false,
			map[string]want{"mmio_stale_data": {"kept", RuleBugOverrides}, "mds": {"kept", RuleVERW}},
			"bugs.c 6.18 mmio_select_mitigation: no cpu_mitigations_off(); MDS bug → verw_clear_cpu_buf_mitigation_selected"},
		{"mds=off alone stays", "x86", "6.8.0", "mds=off", modelIntel, false,
			map[string]want{"mds": {"kept", RuleVERW}},
			"bugs.c md_clear_update_mitigation (6.8) / mds_update_mitigation (6.16+): TAA/MMIO keep the clear"},
		{"all four VERW users off", "x86", "6.18.3", "mds=off tsx_async_abort=off mmio_stale_data=off reg_file_data_sampling=off", modelIntel, false,
			map[string]want{"mds": {"off", RuleBugOff}, "tsx_async_abort": {"off", RuleBugOff}, "mmio_stale_data": {"off", RuleBugOff}, "reg_file_data_sampling": {"off", RuleBugOff}},
			"bugs.c mds_cmdline, tsx_async_abort_parse_cmdline, mmio_stale_data_parse_cmdline, rfds_parse_cmdline: off"},
		{"pti=on overrides, pti=auto defers", "x86", "6.18.3", "mitigations=off pti=on", modelIntel, false,
			map[string]want{"meltdown": {"kept", RuleBugOverrides}},
			"arch/x86/mm/pti.c pti_check_boottime_disable 6.17+: only PTI_AUTO asks the user_kernel vector"},
		{"pti=auto defers", "x86", "6.18.3", "mitigations=off pti=auto", modelIntel, false,
			map[string]want{"meltdown": {"off", RuleDefers}},
			"arch/x86/mm/pti.c: PTI_AUTO && !cpu_attack_vector_mitigated(CPU_MITIGATE_USER_KERNEL) → PTI_FORCE_OFF"},
		{"spectre_v2_user=off weakens only", "x86", "6.18.3", "spectre_v2_user=off", modelIntel, false,
			map[string]want{"spectre_v2": {"partial", RuleSubField}},
			"bugs.c spectre_v2_user_select_mitigation: the STIBP/IBPB sub-fields"},
		{"srso safe-ret overrides on AMD 6.17", "x86", "6.17.4", "mitigations=off spec_rstack_overflow=safe-ret", modelAMD, false,
			map[string]want{"spec_rstack_overflow": {"kept", RuleBugOverrides}, "tsa": {"off", RuleGlobalOff}, "vmscape": {"off", RuleGlobalOff}},
			"bugs.c srso_parse_cmdline: safe-ret → SRSO_MITIGATION_SAFE_RET; srso_select_mitigation asks the vectors only for AUTO"},
		{"tsa=on overrides", "x86", "6.18.3", "mitigations=off tsa=on", modelAMD, false,
			map[string]want{"tsa": {"kept", RuleBugOverrides}},
			"bugs.c tsa_parse_cmdline: on → TSA_MITIGATION_FULL; tsa_select_mitigation asks the vectors only for AUTO"},
		{"retbleed=off is a no-op beside eIBRS on Intel", "x86", "6.18.3", "retbleed=off", map[string]string{"retbleed": "Mitigation: Enhanced IBRS", "spectre_v2": "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S"}, false,
			map[string]want{"retbleed": {"kept", RuleIBRSTrumps}},
			"bugs.c retbleed_update_mitigation: Intel && SPECTRE_V2_EIBRS → RETBLEED_MITIGATION_EIBRS"},
		{"arm does not parse mitigations=", "arm", "6.12.0", "mitigations=off", map[string]string{"spectre_v2": "Mitigation: __user pointer sanitization"}, false,
			map[string]want{"spectre_v2": {"on", ""}},
			"kernel-parameters.txt: mitigations= [X86,PPC,S390,ARM64]; arch/arm never calls cpu_mitigations_off()"},
		{"loongarch does not parse mitigations=", "loongarch", "6.18.3", "mitigations=off nospectre_v1", map[string]string{"spectre_v1": "Mitigation: __user pointer sanitization"}, false,
			map[string]want{"spectre_v1": {"on", ""}},
			"arch/loongarch: no cpu_mitigations_off(), no nospectre_v1 parser (kernel-parameters.txt nospectre_v1 [X86,PPC])"},
		{"built without CONFIG_CPU_MITIGATIONS", "x86", "6.12.0", "mitigations=off", modelIntel, true,
			map[string]want{"spectre_v2": {"on", ""}, "mds": {"on", ""}},
			"kernel/cpu.c !CONFIG_CPU_MITIGATIONS: mitigations_parse_cmdline ignores the value"},
		{"arm64 mitigations=off", "arm64", "6.12.0", "mitigations=off", map[string]string{"spectre_v2": "Mitigation: CSV2, BHB", "spec_store_bypass": "Mitigation: Speculative Store Bypass disabled via prctl"}, false,
			map[string]want{"spectre_v2": {"off", RuleGlobalOff}, "spec_store_bypass": {"off", RuleGlobalOff}},
			"arch/arm64/kernel/proton-pack.c spectre_v2_mitigations_off, spectre_v4_mitigations_off: cpu_mitigations_off()"},
	}
	for _, c := range cases {
		m := modelMachine(c.arch, c.release, c.lines)
		m.NoGlobalSwitch = c.noSwitch
		params, err := ParseParams(c.cmdline)
		if err != nil {
			t.Fatal(err)
		}
		p := kb.Predict(m, params)
		for file, w := range c.want {
			st := p.Of(file)
			got := "on"
			switch {
			case st.Off:
				got = "off"
			case st.Kept != "":
				got = "kept"
			case st.Partial:
				got = "partial"
			}
			if got != w.state || w.rule != "" && st.Rule != w.rule {
				t.Errorf("%s: %s on %s %s: %s is %s (rule %q, by %q), want %s (rule %q) — %s", c.name, c.cmdline, c.arch, c.release, file, got, st.Rule, st.By, w.state, w.rule, c.source)
			}
		}
		if strings.Contains(c.name, "does not parse") && len(p.Ignored) == 0 {
			t.Errorf("%s: no parameter reported ignored", c.name)
		}
	}
	for _, r := range []string{RuleBugOff, RuleGlobalOff, RuleGlobalOffWins, RuleBugOverrides, RuleDefers, RuleVectors, RuleVERW, RuleNotParsed, RuleNoGlobalSwitch, RuleSubField, RuleITSFollows, RuleRetbleedFollows, RuleHypervisorFirst} {
		if RuleSources[r] == "" {
			t.Errorf("rule %s cites no kernel source", r)
		}
	}
}

// TestComputedAlternatives: on a Zen 4-like 6.18 machine the costly set is
// AMD's own (Safe RET, TSA's buffer clear), never an Intel parameter; on
// a Cascade Lake-like 6.8 machine the four VERW users go together; on
// 6.18 mitigations=off can keep SSB's prctl mode, on 6.17 it cannot
// (ssb_parse_cmdline); every alternative reaches exactly what it says by
// the model and names only files the machine shows mitigated.
func TestComputedAlternatives(t *testing.T) {
	kb, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	intel := maps.Clone(modelIntel)
	delete(intel, "vmscape")
	delete(intel, "tsa")
	cases := []struct {
		name, release string
		lines         map[string]string
		want          map[string]string // id → params
		absent        []string
	}{
		{"zen4 6.18", "6.18.3", modelAMD, map[string]string{
			"computed-costly-off":             "spec_rstack_overflow=off tsa=off",
			"computed-keep-spec_store_bypass": "mitigations=off spec_store_bypass_disable=prctl",
		}, []string{"computed-everything-off"}},
		{"zen4 6.17", "6.17.4", modelAMD, map[string]string{
			"computed-costly-off": "spec_rstack_overflow=off tsa=off",
		}, []string{"computed-keep-spec_store_bypass"}},
		{"cascade lake 6.8", "6.8.0", intel, map[string]string{
			// retbleed's eIBRS is spectre_v2's: nospectre_v2 takes it
			// (RuleRetbleedFollows), retbleed=off is not needed.
			"computed-costly-off": "mds=off nopti mmio_stale_data=off nospectre_v2 tsx_async_abort=off reg_file_data_sampling=off",
		}, []string{"computed-keep-spec_store_bypass"}},
	}
	for _, c := range cases {
		m := modelMachine("x86", c.release, c.lines)
		got := map[string]KBAlternative{}
		for _, a := range kb.ComputedAlternatives(m) {
			got[a.ID] = a
			for _, n := range slices.Concat(a.GivesUp, a.Keeps) {
				if v := ParseVulnerability(n, c.lines[n]); v.State != Mitigated {
					t.Errorf("%s: %s names %s, which shows %q", c.name, a.ID, n, c.lines[n])
				}
			}
			off := kb.ExpectedOff(m, ParseCmdline(a.Params).Params)
			if !slices.Equal(off, a.GivesUp) || len(off) == 0 {
				t.Errorf("%s: %s gives up %v, the model turns off %v", c.name, a.ID, a.GivesUp, off)
			}
		}
		for id, params := range c.want {
			a, ok := got[id]
			if !ok {
				t.Errorf("%s: no %s (got %v)", c.name, id, slices.Collect(maps.Keys(got)))
				continue
			}
			if !sameTokens(a.Params, params) {
				t.Errorf("%s: %s is %q, want %q", c.name, id, a.Params, params)
			}
		}
		for _, id := range c.absent {
			if a, ok := got[id]; ok {
				t.Errorf("%s: %s offered: %q", c.name, id, a.Params)
			}
		}
	}
}

func sameTokens(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// TestGuestFacts: a guest note is printed only where the line shows its
// condition: the BHB-loop note for 'BHI: SW loop' inside WSL, never for
// BHI_DIS_S or 'BHI: Not affected'; no "Vulnerable: No microcode" claim
// for a Safe RET line; the configuration switch named by kernel version.
func TestGuestFacts(t *testing.T) {
	kb, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := kb.LookupVulnerability("spectre_v2")
	loop := "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop"
	if f := v2.Facts(loop, true); len(f) != 1 || !strings.Contains(f[0], "software BHB loop") {
		t.Errorf("WSL BHB loop line: %q", f)
	}
	if f := v2.Facts(loop, false); len(f) != 0 {
		t.Errorf("the WSL note outside WSL: %q", f)
	}
	for _, raw := range []string{
		"Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S",
		"Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; STIBP: always-on; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
	} {
		for _, f := range v2.Facts(raw, true) {
			if strings.Contains(f, "loop runs") || strings.Contains(f, "every syscall") {
				t.Errorf("%q: BHB loop note %q", raw, f)
			}
		}
	}
	srso, _ := kb.LookupVulnerability("spec_rstack_overflow")
	for _, f := range append(srso.Facts("Mitigation: safe RET, no microcode", true), srso.VMGuest) {
		if strings.Contains(f, "reports 'Vulnerable: No microcode'") {
			t.Errorf("Safe RET line told %q", f)
		}
	}
	if f := srso.Facts("Vulnerable: No microcode", false); len(f) != 1 {
		t.Errorf("No microcode line: %q", f)
	}
	for rel, want := range map[string]string{"5.15.167.4-microsoft-standard-WSL2": "CONFIG_SPECULATION_MITIGATIONS", "6.8.0": "CONFIG_SPECULATION_MITIGATIONS", "6.9.0": "CONFIG_CPU_MITIGATIONS", "6.18.3": "CONFIG_CPU_MITIGATIONS"} {
		if got := GlobalSwitchConfig(rel); got != want {
			t.Errorf("GlobalSwitchConfig(%s) = %s, want %s", rel, got, want)
		}
	}
	for _, r := range kb.PrecedenceFor("6.6.87.2-microsoft-standard-WSL2") {
		if strings.Contains(r.Rule, "CONFIG_CPU_MITIGATIONS=n") {
			t.Errorf("6.6 is told %q", r.Rule)
		}
	}
}
