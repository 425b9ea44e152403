package advise

import (
	"slices"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// NotOffered is an alternative advise leaves out, and why.
type NotOffered struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// alternatives are the alternatives to target "off" for the machine:
// first the ones computed for it (mitigation.ComputedAlternatives: the
// smallest parameter set this kernel parses for each target, checked by
// the model), then the knowledge base's method swaps and attack-vector
// controls that apply to it, with what they give up and keep here by the
// model. Left out, with the reason: an alternative not for this machine,
// one the running command line already has, and one that changes nothing
// here.
func alternatives(kb *mitigation.Knowledge, s *sysinfo.Snapshot, running []mitigation.Param) ([]mitigation.KBAlternative, []NotOffered) {
	m := s.Machine()
	eff := mitigation.Effective(running)
	offered, skipped := []mitigation.KBAlternative{}, []NotOffered{}
	consider := kb.ComputedAlternatives(m)
	for _, a := range kb.Alternatives {
		if a.Target != "off" {
			continue
		}
		if ok, why := a.Applies(m); !ok {
			skipped = append(skipped, NotOffered{a.ID, why})
			continue
		}
		kb.Describe(m, &a)
		if len(a.GivesUp)+len(a.Weakens) == 0 && !selects(a.Params) {
			skipped = append(skipped, NotOffered{a.ID, "changes nothing on this machine: " + a.Params + " turns off no protection it shows"})
			continue
		}
		consider = append(consider, a)
	}
	for _, a := range consider {
		if runsAlready(eff, a.Params) {
			skipped = append(skipped, NotOffered{a.ID, "the running command line already has " + a.Params})
			continue
		}
		offered = append(offered, a)
	}
	return offered, skipped
}

// selects reports whether params choose a different mitigation method
// (retbleed=stuff) rather than turning one off.
func selects(params string) bool {
	for _, r := range mitigation.Classify(mitigation.ParseCmdline(params).Params).Params {
		if r.Effect == mitigation.EffectSelect && r.Kind == mitigation.KindBug {
			return true
		}
	}
	return false
}

// runsAlready reports whether every parameter of an alternative is already
// in effect.
func runsAlready(eff []mitigation.Param, params string) bool {
	want := mitigation.ParseCmdline(params).Params
	return len(want) > 0 && !slices.ContainsFunc(want, func(w mitigation.Param) bool {
		return !slices.ContainsFunc(eff, func(p mitigation.Param) bool { return p.Key() == w.Key() && p.Value == w.Value })
	})
}
