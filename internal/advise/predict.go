package advise

import (
	"slices"

	"github.com/sectax/sectax/internal/mitigation"
)

// subFieldOnly are per-bug parameters that change only a sub-field of
// their file (spectre_v2's STIBP/IBPB/BHI, l1tf's VMX): turning them off
// weakens the file's mitigation but leaves its "Mitigation:" prefix.
var subFieldOnly = map[string]bool{
	"spectre_v2_user":             true,
	"spectre_bhi":                 true,
	"kvm_intel.vmentry_l1d_flush": true,
	"l1tf":                        true, // PTE inversion is always on
}

// newPrecedence reports whether the kernel release lets a per-bug
// parameter override mitigations= (Linux 6.17+), by the knowledge base.
func newPrecedence(kb *mitigation.Knowledge, release string) bool {
	for _, r := range kb.PrecedenceFor(release) {
		if r.ID == "per-bug-overrides-global" {
			return true
		}
	}
	return false
}

// offState is what a command line does to one vulnerability file.
type offState struct {
	off     bool   // the main mitigation is turned off
	partial bool   // only a sub-field is turned off
	by      string // the parameter responsible ("mitigations=off", "nopti")
	kept    string // a per-bug parameter that keeps it on despite mitigations=off
}

// predict says whether params turn the named file's mitigation off on a
// kernel with the given precedence. vectors are the knowledge base's
// attack vectors for the file.
func predict(params []mitigation.Param, file string, vectors []string, newer bool, arch string) offState {
	eff := mitigation.Effective(params)
	cls := mitigation.Classify(eff).ForArch(arch)
	var bug, sub *mitigation.Relevant
	for i := range cls.Params {
		r := &cls.Params[i]
		if r.Kind != mitigation.KindBug || !slices.Contains(r.Files, file) {
			continue
		}
		if subFieldOnly[r.Key()] {
			// spectre_bhi=vmexit keeps BHI protection only at VM exits:
			// it weakens the file as much as an "off" sub-field does.
			if r.Effect == mitigation.EffectOff || r.Key() == "spectre_bhi" && r.Effect == mitigation.EffectSelect {
				sub = r
			}
			continue
		}
		bug = r
	}
	var st offState
	g := cls.Global
	globalOff := g != nil && g.Option == "off" && len(g.Invalid) == 0
	switch {
	case bug != nil && bug.Effect == mitigation.EffectOff:
		st.off, st.by = true, bug.Raw
	case globalOff && bug != nil && newer && bug.Effect != mitigation.EffectInvalid:
		st.kept = bug.Raw // 6.17+: the per-bug parameter overrides mitigations=off
	case globalOff:
		st.off, st.by = true, "mitigations="+g.Value
	case g != nil && newer && len(g.VectorsOff) > 0 && len(vectors) > 0 && bug == nil:
		all := true
		for _, v := range vectors {
			if !slices.Contains(g.VectorsOff, v) {
				all = false
			}
		}
		if all {
			st.off, st.by = true, "mitigations="+g.Value
		}
	}
	if !st.off && sub != nil {
		st.partial, st.by = true, sub.Raw
	}
	return st
}

// tooOld returns, for each parameter the running kernel predates, the
// version that added it (knowledge base "since"): such a kernel does not
// know the parameter and passes it on to init.
func tooOld(kb *mitigation.Knowledge, release string, params []mitigation.Param) map[string]string {
	out := map[string]string{}
	for _, p := range params {
		kp, ok := kb.LookupParam(p.Key())
		if ok && kp.Since != "" && mitigation.KernelBelow(release, kp.Since) {
			out[p.Raw] = kp.Since
		}
	}
	return out
}
