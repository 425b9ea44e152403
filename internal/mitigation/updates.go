package mitigation

import (
	"slices"
	"strconv"
	"strings"
)

// The update functions of bugs.c (6.16+, cpu_select_mitigations() runs
// them after every select function): one bug's choice changed by
// another's. The model applies them after predictFile, in the kernel's
// order: spectre_v2_update_mitigation, retbleed_update_mitigation
// (applyRetbleed, model.go), its_update_mitigation.

// applySpectreV2Update is RuleRetbleedIBRS: spectre_v2_update_mitigation
// turns IBRS on for a spectre_v2 left AUTO when retbleed keeps a
// mitigation of its own on Intel (mitigations=off retbleed=ibpb or
// retbleed=unret from 6.17, where the per-bug value overrides off):
//
//	if (spectre_v2_cmd == SPECTRE_V2_CMD_AUTO && !spectre_v2_in_eibrs_mode(spectre_v2_enabled)) {
//		if (IS_ENABLED(CONFIG_MITIGATION_IBRS_ENTRY) && boot_cpu_has_bug(X86_BUG_RETBLEED) &&
//		    retbleed_mitigation != RETBLEED_MITIGATION_NONE && retbleed_mitigation != RETBLEED_MITIGATION_STUFF &&
//		    boot_cpu_has(X86_FEATURE_IBRS) && boot_cpu_data.x86_vendor == X86_VENDOR_INTEL)
//			spectre_v2_enabled = SPECTRE_V2_IBRS;
//
// The machine has IBRS when its spectre_v2 line shows an IBRS mode or an
// IBPB field (the feature comes with IBRS; RuleNoFeature reads it alike).
func (k *Knowledge) applySpectreV2Update(m Machine, parsed []Relevant, files map[string]OffState) {
	rb, sv := files["retbleed"], files["spectre_v2"]
	rline, sline := m.Lines["retbleed"], m.Lines["spectre_v2"]
	if m.Vendor != "GenuineIntel" || !kbAtLeast(m.Release, "6.16", true) || rline == "" || kbVerdict(rline) == "not_affected" ||
		rb.Off || rb.Rule != RuleBugOverrides || !sv.Off || sv.Rule != RuleGlobalOff && sv.Rule != RuleDefers {
		return
	}
	if mode, _, _ := strings.Cut(sline, ";"); !strings.Contains(mode, "IBRS") && !strings.Contains(sline, "; IBPB:") {
		return
	}
	for _, r := range parsed {
		if r.Key() != "retbleed" || r.Effect == EffectInvalid {
			continue
		}
		if v := "," + r.Value + ","; !strings.Contains(v, ",ibpb,") && !strings.Contains(v, ",unret,") {
			continue
		}
		// spectre_v2 stays mitigated (IBRS), its user-space sub-fields
		// (STIBP, IBPB: spectre_v2_user AUTO) stay off.
		files["spectre_v2"] = OffState{Partial: true, Kept: r.Raw, By: sv.By, Rule: RuleRetbleedIBRS}
		files["retbleed"] = OffState{Kept: "spectre_v2", By: sv.By, Rule: RuleIBRSTrumps}
	}
}

// applyITS is its_update_mitigation (bugs.c 6.16+; its_select_mitigation
// in 6.15 and the stable backports): once spectre_v2 ends NONE ("Spectre-v2
// mitigation is off, disabling ITS") or in an LFENCE mode ("ITS mitigation
// is not compatible with lfence mitigation") ITS is off, whatever
// indirect_target_selection= chose (RuleITSFollows).
func (k *Knowledge) applyITS(m Machine, parsed []Relevant, files map[string]OffState) {
	const its = "indirect_target_selection"
	st, ok := files[its]
	line := m.Lines[its]
	if !ok || st.Off || line == "" || kbVerdict(line) == "not_affected" {
		return
	}
	if sv := files["spectre_v2"]; sv.Off {
		files[its] = OffState{Off: true, By: sv.By, Rule: RuleITSFollows}
		return
	}
	for _, r := range parsed {
		if r.Key() == "spectre_v2" && r.Effect != EffectInvalid && !k.DefersOn(m, r.Param) && (strings.Contains(r.Value, "lfence") || r.Value == "retpoline,amd") {
			files[its] = OffState{Off: true, By: r.Raw, Rule: RuleITSFollows}
		}
	}
}

// applyITSStuff is RuleITSStuff: indirect_target_selection=stuff, taken
// where spectre_v2 stays in retpoline mode (call-depth tracking, 6.2+),
// mitigates a vulnerable retbleed line by stuffing.
func (k *Knowledge) applyITSStuff(m Machine, parsed []Relevant, files map[string]OffState) {
	its, rb, sv := files["indirect_target_selection"], files["retbleed"], files["spectre_v2"]
	if !itsStuffTaken(m, parsed, its, sv) || kbVerdict(m.Lines["retbleed"]) != "vulnerable" || rb.Off || rb.Becomes != "" {
		return
	}
	files["retbleed"] = OffState{Becomes: Mitigated, By: "indirect_target_selection=stuff", Rule: RuleITSStuff}
}

// itsStuffTaken reports whether the effective indirect_target_selection=
// is stuff and the kernel takes it: ITS mitigated and kept, spectre_v2 in
// retpoline mode and kept, call-depth tracking (6.2+).
func itsStuffTaken(m Machine, parsed []Relevant, its, sv OffState) bool {
	stuff := false
	for _, r := range parsed {
		if r.Key() == "indirect_target_selection" && !r.Overridden {
			stuff = r.Value == "stuff"
		}
	}
	return stuff && kbAtLeast(m.Release, "6.2", true) && kbVerdict(m.Lines["indirect_target_selection"]) == "mitigated" && !its.Off &&
		strings.HasPrefix(m.Lines["spectre_v2"], "Mitigation: Retpolines") && !sv.Off
}

// applyIBRS is RuleIBRSTrumps: on Intel, retbleed_update_mitigation makes
// retbleed follow spectre_v2 when spectre_v2 stays in an IBRS mode (the
// mode it shows now, or an explicit spectre_v2=ibrs/eibrs…).
func (k *Knowledge) applyIBRS(m Machine, parsed []Relevant, files map[string]OffState) {
	rb, sv := files["retbleed"], files["spectre_v2"]
	if !rb.Off || sv.Off || m.Lines["retbleed"] == "" || kbVerdict(m.Lines["retbleed"]) == "not_affected" {
		return
	}
	mode, _, _ := strings.Cut(m.Lines["spectre_v2"], ";")
	ibrs := strings.Contains(mode, "IBRS")
	for _, r := range parsed {
		if r.Key() == "spectre_v2" && r.Effect != EffectInvalid && !k.DefersOn(m, r.Param) {
			ibrs = strings.Contains(r.Value, "ibrs")
		}
	}
	if ibrs {
		files["retbleed"] = OffState{Kept: "spectre_v2", By: rb.By, Rule: RuleIBRSTrumps}
	}
}

// applyForced is RuleForced: a force value on a file the machine shows
// "Not affected" sets the bug (setup_force_cpu_bug in vmscape_parse_cmdline
// and its_parse_cmdline), and the select function then decides as for an
// affected CPU:
//   - vmscape (AUTO, RuleDefers): IBPB before exit to userspace where the
//     CPU has IBPB (the spectre_v2 line's IBPB field) and the bug is
//     mitigated (not mitigations=off, not no_guest_host), else Vulnerable
//     (vmscape_select_mitigation: !X86_FEATURE_IBPB → NONE);
//   - indirect_target_selection (ITS_CMD_ON): the aligned branch/return
//     thunks while spectre_v2 stays in retpoline mode, Vulnerable once
//     spectre_v2 is off (its_update_mitigation); in another spectre_v2
//     mode the model does not predict it.
func (k *Knowledge) applyForced(m Machine, parsed []Relevant, files map[string]OffState) {
	for _, r := range parsed {
		if r.Value != "force" || r.Effect == EffectInvalid {
			continue
		}
		switch file := r.Key(); file {
		case "vmscape":
			line, ok := m.Lines[file]
			if !ok || kbVerdict(line) != "not_affected" {
				continue
			}
			st := OffState{Becomes: Vulnerable, By: r.Raw, Rule: RuleForced}
			if strings.Contains(m.Lines["spectre_v2"], "; IBPB:") && !k.vmscapeOff(m, parsed) {
				st.Becomes = Mitigated
			}
			files[file] = st
		case "indirect_target_selection":
			line, ok := m.Lines[file]
			if !ok || kbVerdict(line) != "not_affected" {
				continue
			}
			switch sv := m.Lines["spectre_v2"]; {
			case files["spectre_v2"].Off:
				files[file] = OffState{Becomes: Vulnerable, By: r.Raw, Rule: RuleForced}
			case strings.HasPrefix(sv, "Mitigation: Retpolines"):
				files[file] = OffState{Becomes: Mitigated, By: r.Raw, Rule: RuleForced}
			}
		}
	}
}

// vmscapeOff reports whether the vectors leave vmscape (AUTO) off: the
// model's prediction for a machine that shows vmscape mitigated.
func (k *Knowledge) vmscapeOff(m Machine, parsed []Relevant) bool {
	as := m
	as.Lines = map[string]string{"vmscape": "Mitigation: IBPB before exit to userspace"}
	as.Vulns = []Vulnerability{ParseVulnerability("vmscape", as.Lines["vmscape"])}
	var g *Global
	var params []Param
	for _, r := range parsed {
		params = append(params, r.Param)
	}
	vectorsOn := k.PerBugOverrides(m.Release) && (m.Arch == "" || m.Arch == "x86")
	if slices.ContainsFunc(parsed, func(r Relevant) bool { return r.Kind == KindGlobal }) {
		g = foldedGlobal(params, k.PerBugOverrides(m.Release), vectorsOn)
	}
	return k.predictFile(as, "vmscape", parsed, g, vectorsOn).Off
}

// applySRSONoSMTForce is RuleSRSONoSMT for a machine whose SMT nosmt=force
// makes impossible (cpu_smt_possible() false: CPU_SMT_FORCE_DISABLED; a
// plain nosmt leaves SMT possible): on Zen 1/2 (family below 0x19, Hygon's
// 0x18 too) srso_select_mitigation reads "Zen1/2 with SMT off aren't
// vulnerable to SRSO" and the line becomes "Mitigation: SMT disabled":
//   - 6.16+ (the select/update split): after AUTO has asked the vectors,
//     which return NONE first when they leave SRSO off (mitigations=off);
//     a value the user gave, off's NONE included, goes on to the check
//     (the corpus's 7.3 EPYC-Rome-v1 boot of nosmt=force, no microcode);
//   - before: only with the IBPB-extending microcode (has_microcode, a
//     line without "no microcode"; X86_FEATURE_SRSO_NO) and after the
//     cpu_mitigations_off() check (6.1's bugs.c).
func (k *Knowledge) applySRSONoSMTForce(m Machine, parsed []Relevant, files map[string]OffState) {
	const srso = "spec_rstack_overflow"
	line, ok := m.Lines[srso]
	family, err := strconv.Atoi(m.Family)
	if !ok || err != nil || family >= 0x19 || m.Vendor != "AuthenticAMD" && m.Vendor != "HygonGenuine" ||
		kbVerdict(line) == "not_affected" || strings.HasPrefix(line, "Mitigation: SMT disabled") {
		return
	}
	force, explicit, globalOff := false, false, false
	for _, r := range parsed {
		switch {
		case r.Overridden || r.Effect == EffectInvalid:
		case r.Key() == "nosmt":
			force = r.Value == "force"
		case r.Key() == srso && !k.DefersOn(m, r.Param):
			explicit = true
		case r.Kind == KindGlobal:
			// cpu_mitigations_off(): mitigations=off itself (a vector
			// list is rejected before 6.17, and 6.16 reads no vectors here)
			g := ParseGlobal(r.Value)
			globalOff = g.Option == "off" && len(g.Invalid) == 0
		}
	}
	st := files[srso]
	if !force {
		return
	}
	if kbAtLeast(m.Release, "6.16", true) {
		if st.Off && !explicit {
			return
		}
	} else if globalOff || strings.Contains(strings.ToLower(line), "no microcode") {
		return
	}
	nosmt := OffState{Kept: "nosmt=force", By: "nosmt=force", Rule: RuleSRSONoSMT}
	if kbVerdict(line) != "mitigated" {
		nosmt = OffState{Becomes: Mitigated, By: "nosmt=force", Rule: RuleSRSONoSMT}
	}
	files[srso] = nosmt
}
