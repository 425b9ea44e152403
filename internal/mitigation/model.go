package mitigation

import (
	"slices"
	"strings"
)

// The model of what the kernel will do: given the machine (architecture,
// vendor, kernel release, the vulnerability lines it shows now) and a
// command line, the predicted state of every vulnerability file. advise's
// plan, alternatives and verification, config's boot verification (the
// lab's and the campaign's) and attribution's plan all ask it; nothing
// else decides what a command line turns off.
//
// Each rule cites the kernel code it follows. The x86 sources read for it:
//   - 6.17: arch/x86/kernel/cpu/bugs.c, Kingxukai/linux@0291023e7330da28f2f7453c87c2ab7082d8360f
//   - 6.18: arch/x86/kernel/cpu/bugs.c as the code index holds it (file id 335243211; the
//     same text as v6.18's: vmscape_select_mitigation with should_mitigate_vuln,
//     ssb_parse_cmdline as an early_param, mmio_select_mitigation without cpu_mitigations_off)
//   - before 6.16: torvalds/linux@001415e4e626403c9ff35f2498feb0021d0c8328 and the
//     per-bug checks of cpu_mitigations_off() (md_clear_update_mitigation, mds_select_mitigation)
//   - arch/x86/mm/pti.c pti_check_boottime_disable (6.17: PTI_AUTO && !user_kernel)
//   - Documentation/admin-guide/kernel-parameters.txt: mitigations= is [X86,PPC,S390,ARM64]

// mainVectors are the attack vectors whose protection keeps a file's main
// line mitigated, where they differ from the knowledge base's vectors (the
// vectors of everything the file shows): should_mitigate_vuln() case
// X86_BUG_SPECTRE_V2 is user_kernel || guest_host; spectre_v2_user's
// user_user and guest_guest are the STIBP/IBPB sub-fields.
var mainVectors = map[string][]string{"spectre_v2": {"user_kernel", "guest_host"}}

// hypervisorFirst are the files whose select function returns under a
// hypervisor before it reads the command line (RuleHypervisorFirst).
var hypervisorFirst = map[string]bool{"gather_data_sampling": true}

// subFieldOnly are per-bug parameters that change only a sub-field of
// their file (spectre_v2's STIBP/IBPB/BHI, l1tf's VMX): turning them off
// weakens the file's mitigation but leaves its "Mitigation:" prefix. The
// value is the field they change, "" where vectorSubFields lists the
// fields by parameter.
var subFieldOnly = map[string]string{
	"spectre_v2_user":             "",
	"spectre_bhi":                 "",
	"kvm_intel.vmentry_l1d_flush": "VMX",
	"l1tf":                        "VMX", // PTE inversion is always on
}

// isSubFieldOnly reports whether key is one of subFieldOnly.
func isSubFieldOnly(key string) bool { _, ok := subFieldOnly[key]; return ok }

// OffState is what a command line does to one vulnerability file.
type OffState struct {
	Off     bool   // the main mitigation is turned off
	Partial bool   // only a sub-field is turned off
	By      string // the parameter responsible ("mitigations=off", "nopti")
	Kept    string // what keeps it on although an off switch aims at it
	// Rule is the model's rule that decided (Rule* constants), "" when
	// nothing on the command line aims at the file.
	Rule string
	// Becomes is the state a file not mitigated now is predicted to take
	// ("" when it stays as it is): retbleed=force on a CPU not affected,
	// retbleed=stuff on one that is vulnerable (RuleRetbleedCmd).
	Becomes State
}

// Prediction is the model's answer for one machine and command line.
type Prediction struct {
	// Files are the predicted states by vulnerability file name.
	Files map[string]OffState
	// Ignored are the parameters this architecture's kernel does not
	// parse, or that a kernel without the global switch ignores.
	Ignored []string
}

// Of is the predicted state of one file (the zero state when the machine
// does not show it).
func (p Prediction) Of(name string) OffState { return p.Files[name] }

// NewMachine is the machine in the knowledge base's words from the facts
// sysinfo collects: platform is wsl, vm or native; vulns the parsed lines
// (nil when unreadable).
func NewMachine(arch, vendor, family, release, platform string, vulns []Vulnerability) Machine {
	m := Machine{Arch: arch, Vendor: vendor, Family: family, Release: release, Platform: platform, Vulns: vulns}
	if vulns != nil {
		m.Lines = map[string]string{}
		for _, v := range vulns {
			m.Lines[v.Name] = v.Raw
		}
	}
	return m
}

// Predict runs the model: the state of every file m shows under params,
// with the shared VERW buffer clear applied.
func (k *Knowledge) Predict(m Machine, params []Param) Prediction {
	return k.predict(m, params, true)
}

func (k *Knowledge) predict(m Machine, params []Param, verw bool) Prediction {
	// Rules are keyed on the full version (6.17.7 is not 6.17.0); a
	// release that hides the stable level is read through /proc/version.
	m.Release = m.Kernel()
	cls := Classify(Effective(params)).ForArch(m.Arch)
	p := Prediction{Files: map[string]OffState{}}
	var parsed []Relevant
	for _, r := range cls.Params {
		if r.Overridden {
			continue
		}
		kp, ok := k.lookupParam(r.Key())
		// RuleNotParsed: kernel-parameters.txt's architecture tags.
		if ok && m.Arch != "" && len(kp.Arch) > 0 && !slices.Contains(kp.Arch, m.Arch) {
			p.Ignored = append(p.Ignored, r.Raw)
			continue
		}
		// RuleNoGlobalSwitch: a kernel built without the global switch
		// ignores mitigations= (kernel/cpu.c).
		if r.Kind == KindGlobal && m.NoGlobalSwitch {
			p.Ignored = append(p.Ignored, r.Raw)
			continue
		}
		parsed = append(parsed, r)
	}
	vectorsOn := k.PerBugOverrides(m.Release) && (m.Arch == "" || m.Arch == "x86")
	var g *Global
	if slices.ContainsFunc(parsed, func(r Relevant) bool { return r.Kind == KindGlobal }) {
		g = foldedGlobal(params, k.PerBugOverrides(m.Release), vectorsOn)
	}
	for _, v := range m.Vulns {
		if hypervisorFirst[v.Name] && strings.HasPrefix(v.Raw, "Unknown: Dependent on hypervisor status") ||
			v.Name == "srbds" && strings.HasPrefix(v.Raw, "Unknown: Dependent on hypervisor status") && !kbAtLeast(m.Release, "6.16", true) ||
			v.Name == "mmio_stale_data" && strings.HasPrefix(v.Raw, "Unknown: No mitigations") {
			// RuleHypervisorFirst: decided before the command line is read.
			p.Files[v.Name] = OffState{Rule: RuleHypervisorFirst}
			continue
		}
		st := k.predictFile(m, v.Name, parsed, g, vectorsOn)
		if v.Name == "srbds" && strings.HasPrefix(v.Raw, "Unknown: Dependent on hypervisor status") && st.Rule == RuleBugOff {
			// RuleHypervisorFirst from 6.16: srbds=off leaves the bug AUTO
			// (srbds_parse_cmdline sets only srbds_off), the vectors say
			// FULL, and the hypervisor check comes before srbds_off.
			st = OffState{Rule: RuleHypervisorFirst}
		}
		if v.Name == "srbds" && v.State == Unknown && st.Off && st.Becomes == "" {
			// SRBDS's line the guest could not judge, turned off, reads
			// its OFF string: bugs.c srbds_select_mitigation from the 6.16
			// select/update split sets SRBDS_MITIGATION_OFF for AUTO
			// when should_mitigate_vuln() is false and returns before the
			// X86_FEATURE_HYPERVISOR check, so a guest's "Unknown:
			// Dependent on hypervisor status" becomes srbds_strings[OFF],
			// "Vulnerable" (the corpus's 7.2.13 boots; before 6.16 the
			// hypervisor came first: RuleHypervisorFirst). Other unknown
			// lines (old_microcode's "running under hypervisor") do not
			// depend on the command line.
			st.Becomes = Vulnerable
		}
		p.Files[v.Name] = st
	}
	// The update functions, in cpu_select_mitigations()'s order after
	// every select function (bugs.c 6.16+): retbleed_update_mitigation,
	// its_update_mitigation, then mds/taa/mmio/rfds_update_mitigation.
	if m.Arch == "" || m.Arch == "x86" {
		k.applyRetbleedCmd(m, parsed, p.Files)
		k.applySpectreV2Update(m, parsed, p.Files)
		k.applyRetbleed(m, parsed, p.Files)
		k.applyITS(m, parsed, p.Files)
		k.applyITSStuff(m, parsed, p.Files)
		k.applyForced(m, parsed, p.Files)
		k.applySRSONoSMTForce(m, parsed, p.Files)
	}
	if verw && (m.Arch == "" || m.Arch == "x86") {
		k.applyVERW(m, p.Files)
	}
	if m.Arch == "arm64" {
		applyKASLR(m, params, p.Files)
	}
	return p
}

// applyKASLR is RuleKASLRKeepsKPTI: arm64 keeps KPTI while KASLR is on
// whatever mitigations= says (arch/arm64/kernel/cpufeature.c
// unmap_kernel_at_el0: kaslr_requires_kpti(), asked before
// cpu_mitigations_off() only through kpti=); nokaslr or kpti= lets it go.
func applyKASLR(m Machine, params []Param, files map[string]OffState) {
	st := files["meltdown"]
	if !st.Off || !strings.HasPrefix(st.By, "mitigations=") || !strings.HasPrefix(strings.TrimSpace(m.Lines["meltdown"]), "Mitigation: PTI") {
		return
	}
	for _, p := range Effective(params) {
		if p.Key() == "nokaslr" || p.Key() == "kpti" {
			return
		}
	}
	files["meltdown"] = OffState{Kept: "KASLR", By: st.By, Rule: RuleKASLRKeepsKPTI}
}

// foldedGlobal is the global switch every mitigations= of params leaves
// (FoldGlobal: sticky attack vectors, parsing that stops at an unknown
// item), in the model's words: Value is what follows the first
// "mitigations=" of the tokens as written ("off mitigations=auto" for
// two), so that "mitigations="+Value names them all.
func foldedGlobal(params []Param, prefix, vectors bool) *Global {
	var values []string
	for _, p := range params {
		if p.Key() == "mitigations" && p.HasValue {
			values = append(values, p.Value)
		}
	}
	if len(values) == 0 {
		return nil
	}
	gs := FoldGlobal(values, prefix, vectors)
	g := &Global{Value: strings.TrimPrefix(gs.By, "mitigations="), Option: "auto", NoSMT: gs.NoSMT, VectorsOff: gs.VectorsOff}
	if gs.Off {
		g.Option = "off"
	}
	return g
}

// applyRetbleed is retbleed_update_mitigation on Intel: retbleed's
// method is spectre_v2's (bugs.c: "Intel mitigation selected in
// retbleed_select_mitigation() is in spectre_v2_select_mitigation()";
// before 6.16 retbleed_select_mitigation read spectre_v2_enabled the same
// way). RuleIBRSTrumps: an IBRS mode kept by spectre_v2 keeps retbleed
// (6.16+, where the update runs after mitigations=off too);
// RuleRetbleedFollows: a retbleed line mitigated by spectre_v2's IBRS or
// eIBRS goes with spectre_v2 when spectre_v2 goes.
func (k *Knowledge) applyRetbleed(m Machine, parsed []Relevant, files map[string]OffState) {
	if m.Vendor != "GenuineIntel" {
		return
	}
	rb, sv := files["retbleed"], files["spectre_v2"]
	line := m.Lines["retbleed"]
	if line == "" || kbVerdict(line) == "not_affected" {
		return
	}
	// A line a boot verifier could not read before the boot
	// (ExpectedOffAtBoot's "(predicted)") is Intel's default: spectre_v2's.
	follows := strings.Contains(line, "IBRS") || strings.HasSuffix(line, "(predicted)")
	if sv.Off && !rb.Off && follows && kbVerdict(m.Lines["spectre_v2"]) == "mitigated" {
		files["retbleed"] = OffState{Off: true, By: sv.By, Rule: RuleRetbleedFollows}
		return
	}
	if !kbAtLeast(m.Release, "6.16", true) {
		return
	}
	k.applyIBRS(m, parsed, files)
}

// predictFile follows the kernel's order for one file: the per-bug
// parameter's parser, then <bug>_select_mitigation's AUTO decision
// (mitigations=off before 6.17, should_mitigate_vuln() after).
func (k *Knowledge) predictFile(m Machine, file string, parsed []Relevant, g *Global, vectorsOn bool) OffState {
	var bug, sub, selects *Relevant
	for i := range parsed {
		r := &parsed[i]
		if r.Kind != KindBug || !slices.Contains(r.Files, file) {
			continue
		}
		if r.Key() == "tsx" && file == "srbds" && r.Effect != EffectOff {
			// tsx=off|auto does not choose SRBDS's mitigation:
			// srbds_select_mitigation reads srbds= and, for AUTO,
			// cpu_mitigations_off() or should_mitigate_vuln() (6.16+:
			// SRBDS_MITIGATION_OFF, return) before TSX (X86_FEATURE_RTM)
			// matters for "TSX disabled"; so mitigations=off tsx=auto is
			// mitigations=off to srbds (the corpus's 7.3 Skylake-Client
			// boots: "Unknown: Dependent on hypervisor status" →
			// "Vulnerable").
			continue
		}
		if r.Key() == "l1tf" && r.Effect != EffectOff && r.Effect != EffectInvalid && !k.DefersOn(m, r.Param) {
			selects = r
		}
		if isSubFieldOnly(r.Key()) {
			// spectre_bhi=vmexit keeps BHI protection only at VM exits:
			// it weakens the file as much as an "off" sub-field does,
			// where the line shows a sub-field it turns off.
			if subFieldWeakens(m, file, *r) {
				sub = r
			}
			continue
		}
		bug = r
	}
	var st OffState
	globalOff := g != nil && g.Option == "off" && len(g.Invalid) == 0
	explicit := bug != nil && bug.Effect != EffectInvalid && !k.DefersOn(m, bug.Param)
	switch {
	case bug != nil && bug.Key() == "spec_rstack_overflow" && (bug.Value == "ibpb" || bug.Value == "ibpb-vmexit") &&
		strings.Contains(strings.ToLower(m.Lines[file]), "no microcode"):
		st = OffState{Off: true, By: bug.Raw, Rule: RuleNeedsMicrocode}
	case bug != nil && bug.Key() == "pti" && (bug.Value == "auto" || bug.Value == "on") && globalOff && !kbAtLeast(m.Release, "6.12", true):
		// RulePTIAutoFirst: pti=on jumps to enable and pti=auto to
		// autosel, both before the cpu_mitigations_off() check.
		st = OffState{Kept: bug.Raw, By: "mitigations=" + g.Value, Rule: RulePTIAutoFirst}
	case bug != nil && bug.Key() == "spec_rstack_overflow" && bug.Effect == EffectOff &&
		strings.HasPrefix(m.Lines[file], "Mitigation: SMT disabled") && kbAtLeast(m.Release, "6.16", true):
		st = OffState{Kept: bug.Raw, By: bug.Raw, Rule: RuleSRSONoSMT}
	case bug != nil && bug.Effect == EffectOff:
		st = OffState{Off: true, By: bug.Raw, Rule: RuleBugOff}
	case globalOff && explicit && k.OverridesOff(m.Release, bug.Key()):
		st = OffState{Kept: bug.Raw, Rule: RuleBugOverrides}
		// The line stays, but its sub-fields that other parameters
		// select are still AUTO, which mitigations=off (every vector
		// off) turns off: mitigations=off spectre_v2=eibrs keeps eIBRS
		// and loses STIBP/IBPB and BHI (RuleVectorSubField).
		if i := slices.IndexFunc(m.Vulns, func(v Vulnerability) bool { return v.Name == file }); i >= 0 && sub == nil {
			var keys []string
			for _, r := range parsed {
				if r.Kind == KindBug && r.Effect != EffectInvalid && !k.DefersOn(m, r.Param) && r.Key() != bug.Key() {
					keys = append(keys, r.Key())
				}
			}
			if vectorWeakened(m.Vulns[i], Vectors, keys) != "" {
				st.Partial, st.By = true, "mitigations="+g.Value
			}
		}
	case globalOff && explicit:
		st = OffState{Off: true, By: "mitigations=" + g.Value, Rule: RuleGlobalOffWins}
	case globalOff && bug != nil && bug.Effect != EffectInvalid:
		st = OffState{Off: true, By: "mitigations=" + g.Value, Rule: RuleDefers}
	case globalOff:
		st = OffState{Off: true, By: "mitigations=" + g.Value, Rule: RuleGlobalOff}
	case explicit:
		// An explicit selection: the vectors are not asked.
	case g != nil && vectorsOn && len(g.VectorsOff) > 0 && k.vectorsReach(file, m.Release):
		vectors := k.vectorsOfLine(file, m.Lines[file])
		if len(vectors) > 0 && !slices.ContainsFunc(vectors, func(v string) bool { return !slices.Contains(g.VectorsOff, v) }) {
			st = OffState{Off: true, By: "mitigations=" + g.Value, Rule: RuleVectors}
			break
		}
		var keys []string
		for _, r := range parsed {
			if r.Kind == KindBug && r.Effect != EffectInvalid && !k.DefersOn(m, r.Param) {
				keys = append(keys, r.Key())
			}
		}
		if i := slices.IndexFunc(m.Vulns, func(v Vulnerability) bool { return v.Name == file }); i >= 0 && sub == nil {
			if f := vectorWeakened(m.Vulns[i], g.VectorsOff, keys); f != "" {
				st = OffState{Partial: true, By: "mitigations=" + g.Value, Rule: RuleVectorSubField}
			}
		}
	}
	if st.Off && st.Rule == RuleGlobalOff && selects != nil && k.OverridesOff(m.Release, selects.Key()) {
		// RuleBugOverrides for the sub-field l1tf= selects (bugs.c 6.17+
		// l1tf_select_mitigation: l1tf=flush is L1TF_MITIGATION_FLUSH,
		// not AUTO, and returns before should_mitigate_vuln()), so
		// mitigations=off l1tf=flush leaves l1tf's line as it was.
		st = OffState{Kept: selects.Raw, By: st.By, Rule: RuleBugOverrides}
	}
	if !st.Off && sub != nil {
		st.Partial, st.By, st.Rule = true, sub.Raw, RuleSubField
	}
	return st
}

// applyVERW is RuleVERW: the VERW users (mds, tsx_async_abort,
// mmio_stale_data, reg_file_data_sampling) share one CPU-buffer clear;
// while one of them that selects the clear stays mitigated, the kernel
// re-enables it for the others and reports them mitigated again.
func (k *Knowledge) applyVERW(m Machine, files map[string]OffState) {
	keeper := ""
	for _, v := range m.Vulns {
		if !VERWUsers[v.Name] || v.State != Mitigated || k.AlwaysOn(m.Arch, v.Name, v.Raw) || files[v.Name].Off || !selectsVERW(m, v.Name) {
			continue
		}
		keeper = v.Name
		break
	}
	if keeper == "" {
		return
	}
	for _, v := range m.Vulns {
		if st := files[v.Name]; VERWUsers[v.Name] && st.Off && v.State == Mitigated && !k.AlwaysOn(m.Arch, v.Name, v.Raw) {
			files[v.Name] = OffState{Kept: keeper, By: st.By, Rule: RuleVERW}
		}
	}
}

// selectsVERW reports whether a VERW user left on selects the shared
// clear for all: mmio_select_mitigation sets it only when the CPU is also
// affected by MDS or by TAA with TSX on (otherwise it clears for KVM
// only); rfds_select_mitigation only when VERW clears the register file,
// which its "Mitigation: Clear Register File" line shows.
func selectsVERW(m Machine, name string) bool {
	switch name {
	case "mmio_stale_data":
		mds, taa := m.Lines["mds"], m.Lines["tsx_async_abort"]
		return mds != "" && kbVerdict(mds) != "not_affected" ||
			taa != "" && kbVerdict(taa) != "not_affected" && !strings.Contains(taa, "TSX disabled")
	case "reg_file_data_sampling":
		return strings.Contains(m.Lines[name], "Clear Register File")
	}
	return true
}

// Defers reports whether a per-bug value leaves the bug to the kernel's
// default choice (RuleDefers): the knowledge base's "defers" values of the
// parameter, "*" meaning every value that is not off. A comma list
// (retbleed=auto,nosmt) defers when every part does.
func (k *Knowledge) Defers(p Param) bool {
	kp, ok := k.lookupParam(p.Key())
	if !ok || len(kp.Defers) == 0 {
		return false
	}
	if slices.Contains(kp.Defers, "*") {
		return EffectOf(p) != EffectOff
	}
	if slices.Contains(kp.Defers, p.Value) {
		return true
	}
	parts := strings.Split(p.Value, ",")
	return len(parts) > 1 && !slices.ContainsFunc(parts, func(s string) bool { return !slices.Contains(kp.Defers, s) })
}

// DefersOn is Defers on the machine m: also a spectre_v2= mode the CPU
// lacks, which the kernel replaces by its own choice (RuleNoFeature).
func (k *Knowledge) DefersOn(m Machine, p Param) bool {
	if k.Defers(p) {
		return true
	}
	if p.Key() == "retbleed" {
		// retbleed_select_mitigation from 6.16: "retbleed=stuff only
		// supported for Intel CPUs", and the mitigation falls back to
		// AUTO (RuleDefers); 6.12 took it on any vendor.
		return retbleedMode(p.Value) == "stuff" && m.Vendor != "" && m.Vendor != "GenuineIntel" && kbAtLeast(m.Kernel(), "6.16", true)
	}
	if p.Key() != "spectre_v2" {
		return false
	}
	line, ok := m.Lines["spectre_v2"]
	if !ok || kbVerdict(line) == "not_affected" {
		return false
	}
	mode, _, _ := strings.Cut(line, ";")
	switch {
	case strings.HasPrefix(p.Value, "eibrs"):
		return !strings.Contains(mode, "Enhanced") && !strings.Contains(mode, "Automatic IBRS")
	case p.Value == "ibrs":
		if m.Vendor != "" && m.Vendor != "GenuineIntel" {
			return true
		}
		return !strings.Contains(mode, "IBRS") && !strings.Contains(line, "; IBPB:")
	}
	return false
}

// retbleedMode is the mitigation a retbleed= value selects: the last of
// its items that names one (retbleed_parse_cmdline reads them in turn;
// nosmt and force select none).
func retbleedMode(value string) string {
	mode := ""
	for _, it := range strings.Split(value, ",") {
		switch it {
		case "off", "auto", "unret", "ibpb", "stuff":
			mode = it
		}
	}
	return mode
}

// subFieldWeakens reports whether the sub-field parameter r (an off value,
// or spectre_bhi=vmexit) turns off a
// sub-field that the machine's line of file shows on: spectre_v2_user=off
// an active STIBP or IBPB, spectre_bhi=off a BHI clearing (vmexit only the
// syscall-side one: BHI_DIS_S and the VM-exit loop stay), l1tf=off and
// kvm_intel.vmentry_l1d_flush=never a VMX flush. A line the machine does
// not show is assumed to have it.
func subFieldWeakens(m Machine, file string, r Relevant) bool {
	if r.Effect != EffectOff && (r.Key() != "spectre_bhi" || r.Effect != EffectSelect) {
		return false
	}
	i := slices.IndexFunc(m.Vulns, func(v Vulnerability) bool { return v.Name == file })
	if i < 0 {
		return true
	}
	v := m.Vulns[i]
	if field := subFieldOnly[r.Key()]; field != "" {
		val, shown := v.Fields[field]
		return shown && subFieldActive(val, nil) && !strings.HasPrefix(strings.TrimSpace(strings.ToLower(val)), "vulnerable")
	}
	on := func(string) bool { return false }
	if r.Key() == "spectre_bhi" && r.Effect == EffectSelect {
		on = func(x string) bool { return x == "guest_host" }
	}
	for _, sf := range vectorSubFields[v.Name] {
		if sf.Key != r.Key() {
			continue
		}
		if val, shown := v.Fields[sf.Field]; shown && subFieldActive(val, sf.Active) && !sf.On(on) {
			return true
		}
	}
	return false
}

// applyRetbleedCmd is RuleRetbleedCmd: retbleed=force on a line "Not
// affected" (the bug forced), retbleed=stuff on a vulnerable one.
func (k *Knowledge) applyRetbleedCmd(m Machine, parsed []Relevant, files map[string]OffState) {
	line, ok := m.Lines["retbleed"]
	if !ok {
		return
	}
	rb, sv := files["retbleed"], files["spectre_v2"]
	for _, r := range parsed {
		if r.Key() != "retbleed" || r.Effect == EffectInvalid {
			continue
		}
		parts := strings.Split(r.Value, ",")
		// A value newer than the kernel is an unknown option to it
		// (6.1's bugs.c has neither force nor stuff).
		takes := func(v string) bool {
			return slices.Contains(parts, v) && kbAtLeast(m.Release, k.Since(Param{Name: "retbleed", Value: v, HasValue: true}), true)
		}
		switch {
		case takes("force") && kbVerdict(line) == "not_affected":
			st := OffState{Becomes: Mitigated, By: r.Raw, Rule: RuleRetbleedCmd}
			// The mode before the first ';': "PBRSB-eIBRS: Not affected"
			// is a sub-field of a retpoline line, not an IBRS mode.
			mode, _, _ := strings.Cut(m.Lines["spectre_v2"], ";")
			intelRetpoline := m.Vendor == "GenuineIntel" && !strings.Contains(mode, "IBRS")
			if rb.Off || intelRetpoline {
				st.Becomes = Vulnerable
			}
			files["retbleed"] = st
		case takes("stuff") && kbVerdict(line) == "vulnerable" && !k.DefersOn(m, r.Param) &&
			!rb.Off && !sv.Off && strings.HasPrefix(m.Lines["spectre_v2"], "Mitigation: Retpolines"):
			files["retbleed"] = OffState{Becomes: Mitigated, By: r.Raw, Rule: RuleRetbleedCmd}
		}
	}
}

// OverridesOff reports whether an explicit value of the parameter keeps
// its bug mitigated under mitigations=off on the kernel release
// (RuleBugOverrides): from the precedence rule's version (6.17), or the
// parameter's own overrides_off_since when it came later.
func (k *Knowledge) OverridesOff(release, key string) bool {
	if !k.PerBugOverrides(release) {
		return false
	}
	if kp, ok := k.lookupParam(key); ok && kp.OverridesOffSince != "" {
		return kbAtLeast(release, kp.OverridesOffSince, true)
	}
	return true
}

// vectorsReach reports whether the attack vectors decide a file's bug
// left AUTO on the release: from mitigations='s vectors (6.17), or from
// the bug parameter's own vectors_since when a stable patch brought them
// later (vmscape: 6.17.7, "x86/bugs: Add attack vector controls for
// VMSCAPE"; before it vmscape_select_mitigation asks cpu_mitigations_off()
// only, and AUTO always becomes IBPB).
func (k *Knowledge) vectorsReach(file, release string) bool {
	for _, p := range k.Params {
		if p.Kind == "bug" && p.VectorsSince != "" && slices.Contains(p.Files, file) {
			return kbAtLeast(release, p.VectorsSince, true)
		}
	}
	return true
}
