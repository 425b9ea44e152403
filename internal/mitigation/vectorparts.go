package mitigation

import (
	"slices"
	"strings"
)

// The parts of the vector model that depend on more than a bug's row of
// should_mitigate_vuln(): a mode whose vectors differ from its bug's, and
// the sub-fields of a line that other vectors serve. Read in Linux 6.18.2
// (gfunkmonk/linux-6.18.2, arch/x86/kernel/cpu/bugs.c and kernel/cpu.c;
// line numbers of that text). cross_thread is smt_mitigations
// (kernel/cpu.c:3230 SMT_MITIGATIONS_AUTO by default; mitigations_parse_cmdline
// 3264-3313: auto,nosmt sets ON, no_cross_thread and off set OFF). It is
// asked in four places of bugs.c:
//
//	390-442   should_mitigate_vuln(): GDS is mitigated while any of the four
//	          vectors is, or smt_mitigations != OFF (428-432)
//	1911-1917 spectre_v2_user_select_mitigation, AUTO: IBPB while user_user
//	          || guest_guest; STIBP too unless smt_mitigations == OFF
//	540, 651, 764, 1532, 2930
//	          cpu_smt_disable (mds, taa, mmio, retbleed) and l1tf's
//	          FLUSH_NOSMT only when smt_mitigations == ON (auto,nosmt): the
//	          default (AUTO) never turns SMT off, so no_cross_thread changes
//	          SMT only on a line that also says nosmt
//
// Before 6.17 no parameter turns STIBP off alone: spectre_v2_user=off
// drops IBPB with it (user_user and guest_guest), so a per-bug spelling of
// no_cross_thread cannot be made (DropVectors says so).

// modeVectors are the vectors of a mode that differ from its bug's:
// srso_select_mitigation (bugs.c 3056-3065) picks Safe RET for guest_host
// || (user_kernel && !SRSO_USER_KERNEL_NO), the microcode-only
// "Vulnerable: Microcode, no safe RET" for user_user || guest_guest, and
// nothing else; on a CPU with SRSO_USER_KERNEL_NO Safe RET becomes IBPB
// on VM exit, or Reduced Speculation with SRSO_BP_SPEC_REDUCE
// (3093-3108): those two modes serve guest_host alone, so no_guest_host
// turns them off. Zen 1/2 with SMT impossible (3069-3073) report "SMT
// disabled" while any of the four vectors asks for Safe RET or microcode.
var modeVectors = map[string][]struct {
	Prefix  string
	Vectors []string
}{
	// tsa_select_mitigation (1714-1740): the user/kernel mode while
	// user_kernel || user_user, the VM mode while guest_host ||
	// guest_guest, both (full) while one of each.
	"tsa": {
		{"Mitigation: Clear CPU buffers: user/kernel boundary", []string{"user_kernel", "user_user"}},
		{"Mitigation: Clear CPU buffers: VM", []string{"guest_host", "guest_guest"}},
	},
	"spec_rstack_overflow": {
		{"Mitigation: IBPB on VMEXIT only", []string{"guest_host"}},
		{"Mitigation: Reduced Speculation", []string{"guest_host"}},
		{"Mitigation: SMT disabled", []string{"user_kernel", "user_user", "guest_host", "guest_guest"}},
	},
}

// vectorSubField is a sub-field of a line ("; STIBP: conditional") that
// other vectors than the line's main ones keep on.
type vectorSubField struct {
	Field string
	// Key is the per-bug parameter that selects the sub-field itself: an
	// explicit value of it is not asked about vectors.
	Key string
	// Active are the values of the field that the vectors turn off ("" for
	// every value but the inactive ones).
	Active []string
	// On reports whether the field stays on with the vectors on says on.
	On func(on func(string) bool) bool
	// Serves are the attack vectors the field protects: turned off, it
	// leaves them open even where they are kept by name.
	Serves []string
}

// vectorSubFields are spectre_v2's sub-fields (bugs.c 6.18.2): IBPB and
// STIBP of spectre_v2_user_select_mitigation (1911-1917: IBPB while
// user_user || guest_guest, STIBP also needs cross_thread), and BHI of
// bhi_select_mitigation (2213-2229: on while guest_host and user_kernel,
// VM exit only while guest_host alone, off without guest_host;
// bhi_apply_mitigation 2254-2255 uses BHI_DIS_S whenever it is not off).
// spectre_v2_user=, spectre_v2=on and spectre_bhi= select them explicitly
// (1907-1910 and the CMD_* cases): the vectors are not asked.
var vectorSubFields = map[string][]vectorSubField{
	"spectre_v2": {
		{Field: "IBPB", Key: "spectre_v2_user", Serves: []string{"user_user", "guest_guest"}, On: func(on func(string) bool) bool { return on("user_user") || on("guest_guest") }},
		{Field: "STIBP", Key: "spectre_v2_user", Serves: []string{"user_user", "guest_guest", "cross_thread"}, On: func(on func(string) bool) bool {
			return (on("user_user") || on("guest_guest")) && on("cross_thread")
		}},
		{Field: "BHI", Key: "spectre_bhi", Active: []string{"SW loop, KVM: SW loop"}, Serves: []string{"user_kernel", "guest_host"}, On: func(on func(string) bool) bool { return on("guest_host") && on("user_kernel") }},
		{Field: "BHI", Key: "spectre_bhi", Active: []string{"BHI_DIS_S"}, Serves: []string{"user_kernel", "guest_host"}, On: func(on func(string) bool) bool { return on("guest_host") }},
	},
	// retbleed_show_state (AMD/Hygon, UNRET or IBPB): "SMT enabled with
	// STIBP protection" while spectre_v2_user_stibp is strict, which
	// spectre_v2_user_select_mitigation chooses only with STIBP on
	// (user_user || guest_guest, and cross_thread); without it the line
	// reads "SMT vulnerable" (sched_smt_active()).
	"retbleed": {
		{Field: "SMT", Key: "spectre_v2_user", Active: []string{"enabled with STIBP protection"}, Serves: []string{"user_user", "guest_guest", "cross_thread"}, On: func(on func(string) bool) bool {
			return (on("user_user") || on("guest_guest")) && on("cross_thread")
		}},
	},
}

// modeNarrowed are the full modes that dropping some vectors narrows to a
// weaker mode of the same file, still mitigated: tsa's full "Clear CPU
// buffers" becomes the user/kernel mode without guest_host and
// guest_guest, the VM mode without user_kernel and user_user
// (tsa_select_mitigation, bugs.c 1722-1739; the parameter is tsa=).
var modeNarrowed = map[string][]struct {
	Line, Key string
	On        func(on func(string) bool) bool
}{
	"tsa": {{"Mitigation: Clear CPU buffers", "tsa", func(on func(string) bool) bool {
		return (on("user_kernel") || on("user_user")) && (on("guest_host") || on("guest_guest"))
	}}},
}

// vectorsOfLine are the vectors that keep the file's main line mitigated
// when it reads line: a mode's own (modeVectors), else the file's.
func (k *Knowledge) vectorsOfLine(file, line string) []string {
	for _, mv := range modeVectors[file] {
		if line != "" && strings.HasPrefix(line, mv.Prefix) {
			return mv.Vectors
		}
	}
	return k.VectorsOf(file)
}

// vectorWeakened is the first sub-field of v that dropping the vectors in
// off turns off (RuleVectorSubField), "" when none; explicit are the keys
// of the per-bug parameters given.
func vectorWeakened(v Vulnerability, off, explicit []string) string {
	on := func(x string) bool { return !slices.Contains(off, x) }
	for _, mn := range modeNarrowed[v.Name] {
		if v.Raw == mn.Line && !slices.Contains(explicit, mn.Key) && !mn.On(on) {
			return "mode"
		}
	}
	for _, sf := range vectorSubFields[v.Name] {
		val, ok := v.Fields[sf.Field]
		if !ok || slices.Contains(explicit, sf.Key) || !subFieldActive(val, sf.Active) || sf.On(on) {
			continue
		}
		return sf.Field
	}
	return ""
}

// subFieldActive reports whether a sub-field's value shows its protection
// on: one of active when given, else anything but disabled, not affected
// or vulnerable.
func subFieldActive(val string, active []string) bool {
	if len(active) > 0 {
		return slices.Contains(active, val)
	}
	for _, p := range []string{"disabled", "Not affected", "Vulnerable", "Unknown"} {
		if strings.HasPrefix(strings.TrimSpace(val), p) {
			return false
		}
	}
	return strings.TrimSpace(val) != ""
}

// ProtectionLost are the files of m that params give up or weaken in a
// way that leaves a vector of protect open, although the command line may
// keep that vector by name: a file given up whose vectors include one, or
// a sub-field turned off that serves one (spectre_v2's BHI clearing goes
// with guest_host even while user_kernel is kept: bhi_select_mitigation
// asks guest_host first). Remedy are per-bug values that select those
// sub-fields explicitly, which the vectors then do not ask (RuleBugOverrides,
// 6.17+): spectre_bhi=on keeps BHI's clearing under no_guest_host. A
// weakening whose sub-field is not known counts as lost when the file's
// vectors include a protected one.
func (k *Knowledge) ProtectionLost(m Machine, params []Param, protect []string) (lost, remedy []string) {
	serves := func(vs []string) bool {
		return slices.ContainsFunc(vs, func(v string) bool { return slices.Contains(protect, v) })
	}
	out := k.Outcome(m, params)
	for _, f := range out.GivenUp {
		if serves(k.vectorsOfLine(f, m.Lines[f])) {
			lost = append(lost, f)
		}
	}
	var off, explicit []string
	if vectors := k.HasVectorControls(m); vectors {
		if g := foldedGlobal(params, true, true); g != nil {
			off = g.VectorsOff
		}
	}
	cls := Classify(Effective(params))
	for _, r := range cls.Params {
		if r.Kind == KindBug && r.Effect != EffectInvalid && !k.DefersOn(m, r.Param) {
			explicit = append(explicit, r.Key())
		}
	}
	for _, f := range out.Weakened {
		i := slices.IndexFunc(m.Vulns, func(v Vulnerability) bool { return v.Name == f })
		if i < 0 {
			continue
		}
		v, known, hit := m.Vulns[i], false, false
		for _, sf := range vectorSubFields[f] {
			val, shown := v.Fields[sf.Field]
			if !shown || !subFieldActive(val, sf.Active) {
				continue
			}
			byVectors := len(off) > 0 && !slices.Contains(explicit, sf.Key) && !sf.On(func(x string) bool { return !slices.Contains(off, x) })
			byParam := slices.ContainsFunc(cls.Params, func(r Relevant) bool { return r.Key() == sf.Key && subFieldWeakens(m, f, r) })
			if !byVectors && !byParam {
				continue
			}
			known = true
			if serves(sf.Serves) {
				hit = true
				if byVectors && !byParam && k.PerBugOverrides(m.Kernel()) && !slices.Contains(remedy, sf.Key+"=on") {
					remedy = append(remedy, sf.Key+"=on")
				}
			}
		}
		if hit || !known && serves(k.VectorsOf(f)) {
			lost = append(lost, f)
		}
	}
	slices.Sort(lost)
	return slices.Compact(lost), remedy
}
