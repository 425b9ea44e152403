package mitigation

import (
	"maps"
	"slices"
	"strings"
)

// What a command line does to each vulnerability file of a machine, in the
// words the user sees: the one path from (machine, command line) to the
// per-file answer. advise --target (its given up, weakened, kept and
// regained), decide's options and advise's alternatives (Outcome,
// Describe), the boot verifiers (ExpectedOff) and the corpus replay all
// read PredictFiles; the observed side of a boot is ObservedChange.

// FilePrediction is the model's answer for one vulnerability file.
type FilePrediction struct {
	// Name is the file's name ("spectre_v2").
	Name string
	// From is the line the machine shows now.
	From string
	// State is the state the machine shows now.
	State State
	// Class is what the command line does to a line mitigated now
	// (ClassGivenUp, ClassWeakened, ClassKept; ClassOf), "" when nothing
	// on the command line aims at it or the line is not mitigated.
	Class string
	// To is the text the model predicts the file reads after a boot with
	// the command line, "" where it predicts none: the line as it is
	// where nothing on the command line reaches it (or only keeps it), the
	// weakened text of a line whose changeable part goes ("VMX:
	// vulnerable"), "Vulnerable" for a guest's unknown line turned off. A
	// line a parameter selects a mode of, or that follows such a choice
	// (ITS follows retbleed= and spectre_v2=), may read another
	// mitigation's text, so its To is "" unless the kernel's string is
	// known (spec_store_bypass_disable=seccomp); so is an "SMT …" state
	// where the command line may turn SMT off.
	To string
	// OffState is the model's state of the file: the rule that decided,
	// the parameter responsible, and Becomes, the state a line not
	// mitigated now takes (a force value on a CPU not affected; a
	// mitigation the guest could not see, turned off).
	OffState
}

// Change is the prediction in the corpus replay's and the proof's words:
// for a line mitigated now its class (ClassKept when nothing aims at
// it), else "becomes <state>" or "stays <state>"; ObservedChange is the
// same for a boot.
func (f FilePrediction) Change() string {
	if f.State == Mitigated {
		if f.Class == "" {
			return ClassKept
		}
		return f.Class
	}
	if f.Becomes != "" && f.Becomes != f.State {
		return "becomes " + string(f.Becomes)
	}
	return "stays " + string(f.State)
}

// ObservedChange is what a boot did to a file its default boot showed as
// base, in Change's words: ObservedClass for a mitigated line, else the
// state it stays in or becomes.
func ObservedChange(base, got Vulnerability) string {
	if base.State != Mitigated {
		if got.State == base.State {
			return "stays " + string(base.State)
		}
		return "becomes " + string(got.State)
	}
	return ObservedClass(base, got)
}

// PredictFiles runs the model (Predict, the shared VERW clear included)
// for params on m and gives every file m shows its answer, in m's order,
// with the parameters m's kernel does not parse.
func (k *Knowledge) PredictFiles(m Machine, params []Param) (files []FilePrediction, ignored []string) {
	p := k.Predict(m, params)
	selected, smt := k.selectedFiles(m, params), turnsSMTOff(params)
	files = make([]FilePrediction, 0, len(m.Vulns))
	for _, v := range m.Vulns {
		st := p.Of(v.Name)
		f := FilePrediction{Name: v.Name, From: v.Raw, State: v.State, Class: k.ClassOf(m.Arch, v, st), OffState: st}
		f.To = k.predictedText(m, v, f, selected, smt)
		files = append(files, f)
	}
	stuffTexts(m, files, selected)
	return files, p.Ignored
}

// stuffTexts are the texts of call-depth stuffing where the kernel takes
// it (6.2+, CONFIG_MITIGATION_CALL_DEPTH_TRACKING, which Debian's 6.12 and
// later kernels set, while spectre_v2 stays in retpoline mode), when it is
// the only selection that reaches the file:
//   - retbleed=stuff: bugs.c retbleed_select_mitigation takes
//     RETBLEED_CMD_STUFF on any vendor, and the line reads
//     retbleed_strings[RETBLEED_MITIGATION_STUFF], "Mitigation: Stuffing",
//     whether it was vulnerable or mitigated by another method (the
//     corpus's 6.12 EPYC-v1 "untrained return thunk" and 7.2
//     Skylake-Server "Vulnerable" boots); a mitigated ITS line then reads
//     its_strings[ITS_MITIGATION_RETPOLINE_STUFF] (its_select_mitigation:
//     retpoline with X86_FEATURE_CALL_DEPTH; its_update_mitigation from
//     6.16: retbleed_mitigation == RETBLEED_MITIGATION_STUFF);
//   - indirect_target_selection=stuff: ITS reads the same (the corpus's
//     6.12 Icelake-Server and 7.3 Cascadelake-Server boots), and a
//     vulnerable retbleed line "Mitigation: Stuffing" (RuleITSStuff).
func stuffTexts(m Machine, files []FilePrediction, selected map[string][]string) {
	at := func(name string) *FilePrediction {
		if i := slices.IndexFunc(files, func(f FilePrediction) bool { return f.Name == name }); i >= 0 {
			return &files[i]
		}
		return nil
	}
	rb, sv, its := at("retbleed"), at("spectre_v2"), at("indirect_target_selection")
	if sv == nil || !kbAtLeast(m.Release, "6.2", true) || sv.Off || sv.Partial || !strings.HasPrefix(sv.From, "Mitigation: Retpolines") {
		return
	}
	itsStuff := func(by string) {
		if its != nil && its.State == Mitigated && !its.Off && !its.Partial && slices.Equal(selected[its.Name], []string{by}) {
			its.To = "Mitigation: Retpolines, Stuffing RSB"
		}
	}
	if rb != nil && rb.Rule == RuleITSStuff {
		rb.To = "Mitigation: Stuffing"
	}
	itsStuff("indirect_target_selection=stuff")
	if rb == nil || !slices.Equal(selected["retbleed"], []string{"retbleed=stuff"}) || rb.Off || kbVerdict(rb.From) == "not_affected" ||
		rb.State != Mitigated && rb.Becomes != Mitigated {
		return
	}
	rb.To = "Mitigation: Stuffing"
	itsStuff("retbleed=stuff")
}

// follows are the files whose line another bug's parameter can change
// (bugs.c's update functions): ITS takes retbleed's stuffing and
// spectre_v2's mode (its_update_mitigation), retbleed spectre_v2's IBRS
// and SRSO's IBPB (retbleed_update_mitigation), spectre_v2 retbleed's
// (spectre_v2_update_mitigation).
var follows = map[string][]string{
	"indirect_target_selection": {"retbleed", "spectre_v2"},
	"retbleed":                  {"spectre_v2", "spec_rstack_overflow"},
	"spectre_v2":                {"retbleed"},
}

// knownTexts are the kernel's strings for explicit selections whose text
// the model knows, by file and parameter (ssb_strings[SPEC_STORE_BYPASS_SECCOMP];
// srso_strings[SRSO_MITIGATION_IBPB] and [SRSO_MITIGATION_IBPB_ON_VMEXIT],
// the same from 6.1 to 7.3, which replace "safe RET" on a machine with the
// microcode: the corpus's 6.1 boot of EPYC-Milan). A line that reads "SMT
// disabled" or lacks the microcode is not replaced (srsoKeeps).
var knownTexts = map[string]map[string]string{
	"spec_store_bypass": {"spec_store_bypass_disable=seccomp": "Mitigation: Speculative Store Bypass disabled via prctl and seccomp"},
	"spec_rstack_overflow": {
		"spec_rstack_overflow=ibpb":        "Mitigation: IBPB",
		"spec_rstack_overflow=ibpb-vmexit": "Mitigation: IBPB on VMEXIT only",
	},
}

// srsoKeeps reports whether SRSO's line stays as it is whatever
// spec_rstack_overflow= selects: "Mitigation: SMT disabled" (Zen 1/2
// without SMT: X86_FEATURE_SRSO_NO, or SRSO_MITIGATION_NOSMT from 6.16,
// decided before the user's choice is applied) and a line without the
// microcode, where ibpb and ibpb-vmexit are not set (RuleNeedsMicrocode).
func srsoKeeps(line string) bool {
	return strings.HasPrefix(line, "Mitigation: SMT disabled") || strings.Contains(strings.ToLower(line), "no microcode")
}

// forcedTexts are the kernel's strings of a forced bug (RuleForced):
// vmscape_strings[VMSCAPE_MITIGATION_IBPB_EXIT_TO_USER], its_strings[ITS_MITIGATION_ALIGNED_THUNKS]
// and their NONE "Vulnerable".
var forcedTexts = map[string]map[State]string{
	"vmscape":                   {Mitigated: "Mitigation: IBPB before exit to userspace", Vulnerable: "Vulnerable"},
	"indirect_target_selection": {Mitigated: "Mitigation: Aligned branch/return thunks", Vulnerable: "Vulnerable"},
}

// selectedFiles are the files an explicit per-bug selection of params
// reaches (a value that is neither off nor left to the kernel), with the
// parameters, and the files that follow them.
func (k *Knowledge) selectedFiles(m Machine, params []Param) map[string][]string {
	out := map[string][]string{}
	for _, r := range Classify(Effective(params)).ForArch(m.Arch).Params {
		if r.Kind != KindBug || r.Effect == EffectOff || r.Effect == EffectInvalid || k.DefersOn(m, r.Param) {
			continue
		}
		for _, f := range r.Files {
			out[f] = append(out[f], r.Raw)
		}
	}
	// Followed to a fixed point, in a fixed order: SRSO's parameter
	// reaches ITS through retbleed whichever file a map walk met first
	// (it did not, on some calls: the same line then had a predicted text
	// on one call and none on the next).
	for changed := true; changed; {
		changed = false
		for _, file := range slices.Sorted(maps.Keys(follows)) {
			for _, l := range follows[file] {
				for _, raw := range out[l] {
					if !slices.Contains(out[file], raw) {
						out[file] = append(out[file], raw)
						changed = true
					}
				}
			}
		}
	}
	return out
}

// turnsSMTOff reports whether params may turn SMT off (nosmt,
// mitigations=auto,nosmt, a per-bug ",nosmt" or retbleed=nosmt,
// l1tf=full): a line's "SMT …" state may then change.
func turnsSMTOff(params []Param) bool {
	return slices.ContainsFunc(params, func(p Param) bool {
		return p.Key() == "nosmt" || strings.Contains(p.Value, "nosmt") || p.Key() == "l1tf" && strings.HasPrefix(p.Value, "full")
	})
}

// predictedText is FilePrediction.To.
func (k *Knowledge) predictedText(m Machine, v Vulnerability, f FilePrediction, selected map[string][]string, smt bool) string {
	from := strings.TrimSpace(v.Raw)
	if f.Rule == RuleForced {
		return forcedTexts[v.Name][f.Becomes]
	}
	if f.Rule == RuleSRSONoSMT && f.By == "nosmt=force" {
		return "Mitigation: SMT disabled" // srso_strings[SRSO_MITIGATION_NOSMT]
	}
	if _, ok := v.Fields["SMT"]; ok && smt {
		return ""
	}
	if sel := selected[v.Name]; len(sel) > 0 {
		if len(sel) == 1 && f.Class != ClassGivenUp && v.State == Mitigated && !(v.Name == "spec_rstack_overflow" && srsoKeeps(from)) {
			return knownTexts[v.Name][sel[0]]
		}
		return ""
	}
	switch {
	case f.Becomes == Vulnerable && v.State == Unknown:
		return "Vulnerable"
	case f.Becomes != "":
		return ""
	case v.State != Mitigated:
		if f.Rule == "" {
			return from
		}
		return ""
	case f.Class == "" || f.Class == ClassKept && !f.Off:
		return from
	case f.Class == ClassWeakened && f.Off:
		if _, w := k.KeptAnyway(m.Arch, v.Name, v.Raw); w != "" {
			return w
		}
	}
	return ""
}

// The classes of what a command line does to a file the machine shows
// mitigated, in the words decide and advise both use (Outcome, ClassOf).
const (
	ClassGivenUp  = "given up"
	ClassWeakened = "weakened"
	ClassKept     = "kept"
)

// ClassOf is what the prediction st does to the mitigated file v on the
// architecture: ClassGivenUp (the line goes to Vulnerable), ClassWeakened
// (it stays mitigated with a part off: an always-on line's changeable part,
// or a sub-field), ClassKept (an off switch aims at it but something keeps
// it whole: an always-on part, an override, the shared VERW clear, IBRS,
// KASLR), "" when nothing aims at it. The one classification of decide's
// options and advise's given up / weakened / kept, so they always agree.
func (k *Knowledge) ClassOf(arch string, v Vulnerability, st OffState) string {
	if v.State != Mitigated {
		return ""
	}
	kept, weakened := k.KeptAnyway(arch, v.Name, v.Raw)
	switch {
	case st.Off && kept:
		return ClassKept
	case st.Off && weakened != "":
		return ClassWeakened
	case st.Off:
		return ClassGivenUp
	case st.Partial:
		return ClassWeakened
	case st.Kept != "":
		return ClassKept
	}
	return ""
}

// ObservedClass is what a boot did to a file its default boot showed
// mitigated (base): ClassGivenUp when it is no longer mitigated,
// ClassWeakened when it lost a sub-protection (partial where it was whole,
// a sub-field gone or now disabled, off or vulnerable), else ClassKept. A
// line partial already by default ("SMT vulnerable") that stays so, or
// becomes whole ("SMT disabled"), is kept. The observed side of the
// corpus's replay and of --prove.
func ObservedClass(base, got Vulnerability) string {
	switch {
	case got.State != Mitigated:
		return ClassGivenUp
	case got.Partial && !base.Partial || weakerFields(base, got):
		return ClassWeakened
	}
	return ClassKept
}

// weakerFields reports whether a mitigated line lost a sub-protection its
// default line had: a sub-field (the SMT state aside) gone, or now
// disabled, off or vulnerable.
func weakerFields(base, got Vulnerability) bool {
	for k, bv := range base.Fields {
		if k == "SMT" {
			continue
		}
		gv, ok := got.Fields[k]
		if !ok {
			return true
		}
		low, blow := strings.ToLower(gv), strings.ToLower(bv)
		for _, w := range []string{"vulnerable", "disabled", "off"} {
			if strings.Contains(low, w) && !strings.Contains(blow, w) {
				return true
			}
		}
	}
	return false
}

// Outcome is what a command line does to the files a machine shows
// mitigated, by class (ClassOf), each list sorted.
type Outcome struct {
	GivenUp, Weakened, Kept []string
	// Ignored are the parameters the machine's kernel does not parse.
	Ignored []string
}

// Outcome runs the model for params on m and sorts the mitigated files
// into given up, weakened and kept: PredictFiles, by class.
func (k *Knowledge) Outcome(m Machine, params []Param) Outcome {
	fs, ignored := k.PredictFiles(m, params)
	o := Outcome{GivenUp: []string{}, Weakened: []string{}, Kept: []string{}, Ignored: ignored}
	for _, f := range fs {
		switch f.Class {
		case ClassGivenUp:
			o.GivenUp = append(o.GivenUp, f.Name)
		case ClassWeakened:
			o.Weakened = append(o.Weakened, f.Name)
		case ClassKept:
			o.Kept = append(o.Kept, f.Name)
		}
	}
	slices.Sort(o.GivenUp)
	slices.Sort(o.Weakened)
	slices.Sort(o.Kept)
	return o
}
