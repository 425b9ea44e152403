package mitigation

// The model's rules (model.go), each named and tied to the kernel code it
// follows: a prediction says which rule decided (OffState.Rule), and
// explain.go and the docs quote the source.

// Rule names the model's rules (OffState.Rule); RuleSources cites each.
const (
	RuleBugOff          = "per-bug-off"
	RuleGlobalOff       = "global-off"
	RuleGlobalOffWins   = "global-off-wins"
	RuleBugOverrides    = "per-bug-overrides-global"
	RuleDefers          = "value-defers"
	RuleVectors         = "attack-vectors"
	RuleVERW            = "verw-shared"
	RuleNotParsed       = "arch-not-parsed"
	RuleNoGlobalSwitch  = "no-cpu-mitigations"
	RuleSubField        = "sub-field"
	RuleVectorSubField  = "vector-sub-field"
	RuleIBRSTrumps      = "intel-ibrs-trumps-retbleed"
	RuleRetbleedFollows = "intel-retbleed-follows-spectre-v2"
	RuleITSFollows      = "its-follows-spectre-v2"
	RuleHypervisorFirst = "hypervisor-first"
	RuleKASLRKeepsKPTI  = "arm64-kaslr-keeps-kpti"
	RuleNoFeature       = "no-feature-means-auto"
	RulePTIAutoFirst    = "pti-auto-before-off"
	RuleNeedsMicrocode  = "needs-microcode"
	RuleRetbleedCmd     = "retbleed-force-stuff"
	RuleRetbleedIBRS    = "retbleed-turns-ibrs-on"
	RuleSRSONoSMT       = "srso-nosmt-follows-choice"
	RuleForced          = "force-sets-the-bug"
	RuleITSStuff        = "its-stuff-mitigates-retbleed"
)

// RuleSources is the kernel code each rule follows (file:function, the
// version range it holds for).
var RuleSources = map[string]string{
	RuleBugOff:          "arch/x86/kernel/cpu/bugs.c *_parse_cmdline/*_cmdline (every version): a per-bug off value sets the bug's mitigation to NONE/OFF before select",
	RuleGlobalOff:       "kernel/cpu.c mitigations_parse_cmdline: mitigations=off sets CPU_MITIGATIONS_OFF (cpu_mitigations_off()) and, since 6.17, clears every attack vector, so should_mitigate_vuln() is false for every bug (bugs.c)",
	RuleGlobalOffWins:   "bugs.c before 6.17 (and ssb_parse_cmdline, mmio_select_mitigation in 6.17): cpu_mitigations_off() is checked before the per-bug choice, so mitigations=off wins",
	RuleBugOverrides:    "bugs.c 6.17+ <bug>_select_mitigation: an explicit per-bug value is not AUTO and is kept; only AUTO asks should_mitigate_vuln() (spec_store_bypass_disable= and mmio_stale_data= from 6.18)",
	RuleDefers:          "bugs.c 6.17+: retbleed=auto/nosmt/force, spectre_v2=auto, spectre_v2_user=auto, spec_store_bypass_disable=auto, srbds=<not off> (srbds_parse_cmdline sets only srbds_off), vmscape=force (vmscape_parse_cmdline sets AUTO), pti=auto (pti.c) leave the bug AUTO: should_mitigate_vuln() decides, which mitigations=off turns false",
	RuleVectors:         "bugs.c 6.17+ should_mitigate_vuln(): a bug left AUTO is mitigated when one of its attack vectors is; mitigations=auto,no_<vector> (kernel/cpu.c, x86 only) turns vectors off",
	RuleVERW:            "bugs.c 6.16+ mds/taa/mmio/rfds_update_mitigation (verw_clear_cpu_buf_mitigation_selected), before: md_clear_update_mitigation: one VERW user left on re-enables the buffer clear, and its line, for the others",
	RuleNotParsed:       "kernel-parameters.txt architecture tags; arch/arm and arch/loongarch never call cpu_mitigations_off() (arch/riscv/kernel/bugs.c does, for GhostWrite: ghostwrite_enable_mitigation): a parameter another architecture's kernel parses changes nothing here",
	RuleNoGlobalSwitch:  "kernel/cpu.c without CONFIG_CPU_MITIGATIONS (6.9+; CONFIG_SPECULATION_MITIGATIONS before): mitigations_parse_cmdline logs 'Kernel compiled without mitigations, ignoring' and changes nothing",
	RuleVectorSubField:  "bugs.c 6.18 spectre_v2_user_select_mitigation (IBPB: user_user || guest_guest; STIBP also cross_thread, smt_mitigations != OFF) and bhi_select_mitigation (BHI: guest_host, the syscall half also user_kernel), tsa_select_mitigation (full needs a user and a guest vector): dropping those vectors turns a sub-field after ';' off or narrows the mode, the line stays mitigated",
	RuleSubField:        "bugs.c spectre_v2_user_select_mitigation, bhi_select_mitigation, l1tf/VMX: the value changes a sub-field after ';' only",
	RuleRetbleedFollows: "bugs.c retbleed_update_mitigation (6.16+) and retbleed_select_mitigation before it: on Intel retbleed takes spectre_v2's method (IBRS, eIBRS), so a retbleed line mitigated by it goes when spectre_v2 goes (spectre_v2=off, nospectre_v2)",
	RuleKASLRKeepsKPTI:  "arch/arm64/kernel/cpufeature.c unmap_kernel_at_el0: KPTI stays while kaslr_requires_kpti() (KASLR on) whatever mitigations= says; kpti=0 or nokaslr lets it go",
	RuleHypervisorFirst: "bugs.c gds_select_mitigation (every version): under X86_FEATURE_HYPERVISOR it sets GDS_MITIGATION_HYPERVISOR and returns before cpu_mitigations_off() or should_mitigate_vuln(), so 'Unknown: Dependent on hypervisor status' stays whatever the command line says (srbds_select_mitigation asks the command line first from the 6.16 select/update split, before it the hypervisor first: the corpus's 6.1.192 and 6.12.117 boots keep the line, 7.2.13 turns it Vulnerable); mmio_stale_data's 'Unknown: No mitigations' is X86_BUG_MMIO_UNKNOWN, which no parameter changes",
	RuleITSFollows:      "bugs.c its_update_mitigation (6.16+, after spectre_v2 and retbleed in cpu_select_mitigations; its_select_mitigation in 6.15): spectre_v2 NONE or an LFENCE mode turns ITS off, so mitigations=off indirect_target_selection=on does not keep ITS",
	RuleNoFeature:       "bugs.c spectre_v2_parse_cmdline (every version): spectre_v2=eibrs, eibrs,lfence or eibrs,retpoline on a CPU without Enhanced/Automatic IBRS, and spectre_v2=ibrs on a CPU that is not Intel or has no IBRS, print 'Switching to AUTO select' and leave the kernel's own choice, which mitigations=off turns off; the machine's spectre_v2 line tells: no 'Enhanced' in its mode, no '; IBPB:' field (ibpb_state() prints nothing without the feature, which comes with IBRS)",
	RulePTIAutoFirst:    "arch/x86/mm/pti.c pti_check_boottime_disable before pti= became an early_param: pti=on jumps to enable and pti=auto to autosel, both past the nopti/cpu_mitigations_off() check, so mitigations=off pti=on (as from 6.17, where pti=on is not PTI_AUTO) and mitigations=off pti=auto keep PTI (the corpus's 6.1 boots keep it, its 6.12 and 7.2 boots do not; the model draws the line at 6.12, and a boot of a kernel between settles it)",
	RuleNeedsMicrocode:  "bugs.c srso_select_mitigation (every version): spec_rstack_overflow=ibpb and ibpb-vmexit are set only with the microcode (has_microcode / IBPB_BRTYPE); without it the mode stays NONE and the line reads 'Vulnerable, no microcode' (6.1) or 'Vulnerable: No microcode'",
	RuleRetbleedCmd:     "bugs.c retbleed_parse_cmdline/retbleed_select_mitigation: retbleed=force sets X86_BUG_RETBLEED on a CPU that is not affected (its line becomes mitigated, or Vulnerable when the mitigation is off); retbleed=stuff (CONFIG_MITIGATION_CALL_DEPTH_TRACKING) mitigates by call-depth tracking while spectre_v2 stays in retpoline mode, which mitigations=off ends; both values came with 6.2 (the values' since): Debian 6.1.192's retbleed_parse_cmdline logs 'Ignoring unknown retbleed option' for them",
	RuleRetbleedIBRS:    "bugs.c spectre_v2_update_mitigation (6.16+; it matters from 6.17, where retbleed=ibpb|unret overrides mitigations=off): spectre_v2 left AUTO (mitigations=off) and not in an eIBRS mode, on Intel with the Retbleed bug and IBRS, with retbleed's mitigation neither NONE nor STUFF, becomes SPECTRE_V2_IBRS; retbleed_update_mitigation then sets retbleed to IBRS, and the sub-fields spectre_v2_user chose (AUTO, off) stay off",
	RuleSRSONoSMT:       "bugs.c srso_select_mitigation from the 6.16 select/update split: only AUTO asks the vectors (mitigations=off: NONE, return); any value the user gave, spec_rstack_overflow=off's NONE included, goes on to 'Zen1/2 with SMT off aren't vulnerable to SRSO' (x86 < 0x19 && !cpu_smt_possible() → SRSO_MITIGATION_NOSMT), so on such a machine the line stays 'Mitigation: SMT disabled' (before 6.16 srso_cmd == SRSO_CMD_OFF returned first); nosmt=force makes SMT impossible on a machine that has it, so the line becomes 'Mitigation: SMT disabled' there too (before 6.16 only with the IBPB-extending microcode, X86_FEATURE_SRSO_NO, and not under mitigations=off)",
	RuleForced:          "bugs.c vmscape_parse_cmdline and its_parse_cmdline: vmscape=force and indirect_target_selection=force call setup_force_cpu_bug on a CPU that is not affected, so the file leaves 'Not affected': vmscape_select_mitigation (AUTO) mitigates with IBPB where the CPU has it and the vectors (mitigations=off: none) ask, else 'Vulnerable'; its_select_mitigation/its_update_mitigation give the aligned thunks while spectre_v2 stays in retpoline mode, 'Vulnerable' once spectre_v2 is off",
	RuleITSStuff:        "bugs.c its_select_mitigation (6.15 and the stable backports: ITS_CMD_RSB_STUFF with spectre_v2 in retpoline mode and CONFIG_MITIGATION_CALL_DEPTH_TRACKING sets retbleed_mitigation to STUFF where it was NONE, 'Retbleed mitigation updated to stuffing') and retbleed_update_mitigation (6.16+: 'ITS can also enable stuffing'): indirect_target_selection=stuff turns a vulnerable retbleed line into 'Mitigation: Stuffing' (the corpus's 7.3 Cascadelake-Server boot)",
	RuleIBRSTrumps:      "bugs.c retbleed_update_mitigation (the select/update split, 6.16+; read in 6.17): on Intel, spectre_v2 in IBRS or eIBRS mode sets retbleed to IBRS/EIBRS whatever retbleed= or mitigations=off chose",
}
