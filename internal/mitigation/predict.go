package mitigation

import (
	"slices"
	"strings"
)

// What a command line is predicted to do to the vulnerability files of a
// machine: the one prediction advise's plan and verification, a
// configuration's verification (config) and attribution's plan use.

// subFieldOnly are per-bug parameters that change only a sub-field of
// their file (spectre_v2's STIBP/IBPB/BHI, l1tf's VMX): turning them off
// weakens the file's mitigation but leaves its "Mitigation:" prefix.
var subFieldOnly = map[string]bool{
	"spectre_v2_user":             true,
	"spectre_bhi":                 true,
	"kvm_intel.vmentry_l1d_flush": true,
	"l1tf":                        true, // PTE inversion is always on
}

// PerBugOverrides reports whether the kernel release lets a per-bug
// parameter override mitigations= (Linux 6.17+), by the knowledge base.
func (k *Knowledge) PerBugOverrides(release string) bool {
	for _, r := range k.PrecedenceFor(release) {
		if r.ID == "per-bug-overrides-global" {
			return true
		}
	}
	return false
}

// OffState is what a command line does to one vulnerability file.
type OffState struct {
	Off     bool   // the main mitigation is turned off
	Partial bool   // only a sub-field is turned off
	By      string // the parameter responsible ("mitigations=off", "nopti")
	Kept    string // a per-bug parameter that keeps it on despite mitigations=off
}

// Predict says whether params turn the named file's mitigation off on a
// kernel with the given precedence. vectors are the knowledge base's
// attack vectors for the file.
func Predict(params []Param, file string, vectors []string, newer bool, arch string) OffState {
	eff := Effective(params)
	cls := Classify(eff).ForArch(arch)
	var bug, sub *Relevant
	for i := range cls.Params {
		r := &cls.Params[i]
		if r.Kind != KindBug || !slices.Contains(r.Files, file) {
			continue
		}
		if subFieldOnly[r.Key()] {
			// spectre_bhi=vmexit keeps BHI protection only at VM exits:
			// it weakens the file as much as an "off" sub-field does.
			if r.Effect == EffectOff || r.Key() == "spectre_bhi" && r.Effect == EffectSelect {
				sub = r
			}
			continue
		}
		bug = r
	}
	var st OffState
	g := cls.Global
	globalOff := g != nil && g.Option == "off" && len(g.Invalid) == 0
	switch {
	case bug != nil && bug.Effect == EffectOff:
		st.Off, st.By = true, bug.Raw
	case globalOff && bug != nil && newer && bug.Effect != EffectInvalid:
		st.Kept = bug.Raw // 6.17+: the per-bug parameter overrides mitigations=off
	case globalOff:
		st.Off, st.By = true, "mitigations="+g.Value
	case g != nil && newer && len(g.VectorsOff) > 0 && len(vectors) > 0 && bug == nil:
		all := true
		for _, v := range vectors {
			if !slices.Contains(g.VectorsOff, v) {
				all = false
			}
		}
		if all {
			st.Off, st.By = true, "mitigations="+g.Value
		}
	}
	if !st.Off && sub != nil {
		st.Partial, st.By = true, sub.Raw
	}
	return st
}

// KeptAnyway says what the off switches leave of a mitigated line on the
// machine's architecture: kept when no parameter changes it there (arm64's
// __user pointer sanitization, s390's etokens, x86's bare PTE inversion)
// or when it is a mode mitigations=off leaves in place (TSX disabled);
// weakened, with the line as it becomes, when only a part goes (l1tf's
// VMX flush: "VMX: vulnerable").
func (k *Knowledge) KeptAnyway(arch, name, raw string) (kept bool, weakened string) {
	m, ok := k.ModeOf(name, raw)
	if !ok {
		return false, ""
	}
	if m.KeptByOff {
		return true, ""
	}
	if !m.FixedOn(arch) {
		return false, ""
	}
	if k.Changeable(arch, name, raw) {
		// A fixed mode with a part that does change.
		if w := m.OffText(strings.TrimSpace(raw)); w != strings.TrimSpace(raw) {
			return false, w
		}
	}
	return true, ""
}

// AlwaysOn reports whether a mitigated line keeps its "Mitigation:"
// prefix whatever the off switches do on the architecture (kept whole, or
// only weakened).
func (k *Knowledge) AlwaysOn(arch, name, raw string) bool {
	kept, weakened := k.KeptAnyway(arch, name, raw)
	return kept || weakened != ""
}

// VERWUsers are the files whose mitigation is the same VERW CPU-buffer
// clear: it goes away only when all of them are off (kernel-parameters.txt,
// mds=; https://docs.kernel.org/admin-guide/hw-vuln/mds.html), and the
// kernel reports the ones turned off alone as mitigated again.
var VERWUsers = map[string]bool{"mds": true, "tsx_async_abort": true, "mmio_stale_data": true, "reg_file_data_sampling": true}

// VERWKeeper is a VERW user among vulns that stays mitigated under params
// (its buffer clear then stays for all of them), "" when none does.
func (k *Knowledge) VERWKeeper(vulns []Vulnerability, arch string, params []Param, newer bool) string {
	for _, v := range vulns {
		if !VERWUsers[v.Name] || v.State != Mitigated || k.AlwaysOn(arch, v.Name, v.Raw) {
			continue
		}
		e, _ := k.LookupVulnerability(v.Name)
		if !Predict(params, v.Name, e.Vectors, newer, arch).Off {
			return v.Name
		}
	}
	return ""
}

// TargetFile is a mitigated file that params aim at, and the parameter that
// turns it off.
type TargetFile struct{ Name, Raw, By string }

// Targets are the mitigated files of vulns that params aim at on a kernel
// of release on arch, each judged alone (the shared-VERW rule is not
// applied): which parameter belongs to which file. Files reported "Not
// affected" and always-on mitigations are left out: no parameter changes
// them.
func (k *Knowledge) Targets(vulns []Vulnerability, arch, release string, params []Param) []TargetFile {
	newer := k.PerBugOverrides(release)
	var off []TargetFile
	for _, f := range vulns {
		if f.State != Mitigated || k.AlwaysOn(arch, f.Name, f.Raw) {
			continue
		}
		e, _ := k.LookupVulnerability(f.Name)
		if st := Predict(params, f.Name, e.Vectors, newer, arch); st.Off {
			off = append(off, TargetFile{Name: f.Name, Raw: f.Raw, By: st.By})
		}
	}
	return off
}

// ExpectedOff names the vulnerability files of vulns that params are
// expected to turn off on a kernel of release on arch (by the knowledge
// base and the kernel's precedence rules): the files whose state a
// configuration must change. The VERW rule holds: a user of the shared
// CPU-buffer clear turned off by its own parameter stays mitigated while
// another user still needs the clear.
func (k *Knowledge) ExpectedOff(vulns []Vulnerability, arch, release string, params []Param) []string {
	keeper := k.VERWKeeper(vulns, arch, params, k.PerBugOverrides(release))
	names := []string{}
	for _, t := range k.Targets(vulns, arch, release, params) {
		if keeper != "" && VERWUsers[t.Name] && !strings.HasPrefix(t.By, "mitigations=") {
			continue
		}
		names = append(names, t.Name)
	}
	return names
}
