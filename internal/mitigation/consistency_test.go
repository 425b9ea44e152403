package mitigation

import (
	"slices"
	"testing"
)

// TestClassifierIsTheKnowledgeBase checks that the classifier has no table
// of its own: every mitigation parameter of knowledge.json (mitigations=
// aside, which has its own parser) is one the classifier knows, with the
// files and value effects the knowledge base gives, and nothing else is.
// The study's toggles are toggles in both.
func TestClassifierIsTheKnowledgeBase(t *testing.T) {
	kb, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range kb.Params {
		if !p.Mitigation || p.Kind == "global" {
			if IsMitigationParam(p.Key) != p.Mitigation {
				t.Errorf("%s: IsMitigationParam = %v, knowledge.json says %v", p.Key, !p.Mitigation, p.Mitigation)
			}
			continue
		}
		want = append(want, p.Key)
		if !IsMitigationParam(p.Key) {
			t.Errorf("%s: not a mitigation parameter to IsMitigationParam", p.Key)
		}
		if got := ParamFiles(p.Key); !slices.Equal(got, p.Files) {
			t.Errorf("%s: ParamFiles = %v, knowledge.json files %v", p.Key, got, p.Files)
		}
		for _, v := range p.Values {
			if got := EffectOf(Param{Name: p.Key, Value: v.Value, HasValue: true}); got != v.Effect {
				t.Errorf("%s=%s: classifier says %q, knowledge.json %q", p.Key, v.Value, got, v.Effect)
			}
		}
		if p.Flag != "" {
			if got := EffectOf(Param{Name: p.Key}); got != p.Flag {
				t.Errorf("%s: the bare flag is %q to the classifier, %q to knowledge.json", p.Key, got, p.Flag)
			}
		}
	}
	slices.Sort(want)
	if got := BugParams(); !slices.Equal(got, want) {
		t.Errorf("BugParams = %v, knowledge.json's mitigation parameters %v", got, want)
	}
	for key := range toggleNotes {
		e, ok := kb.LookupParam(key)
		if !ok || e.Mitigation || e.Kind != "toggle" {
			t.Errorf("%s: a study toggle to the classifier; knowledge.json has it %v, kind %q", key, ok, e.Kind)
		}
	}
}

// TestDriftedParams pins the parameters on which the old copies of the
// table (compare's token list, the report's "no…" prefix guess) disagreed
// with the classifier.
func TestDriftedParams(t *testing.T) {
	for _, c := range []struct {
		name                string
		mitigation, turnOff bool
		why                 string
	}{
		{"its=off", false, false, "no such parameter: ITS is indirect_target_selection="},
		{"spectre_v1=off", false, false, "no such parameter: only the flag nospectre_v1 exists"},
		{"nopku", false, false, "hardening (memory protection keys), no vulnerability mitigation"},
		{"nosmap", false, false, "hardening (SMAP), no vulnerability mitigation"},
		{"nosmep", false, false, "hardening (SMEP), no vulnerability mitigation"},
		{"tsx=on", true, true, "TSX on brings TAA back"},
		{"tsx=off", true, false, "TSX off removes TAA"},
		{"nospectre_bhb", true, true, "arm64 branch-history mitigation off"},
		{"kvm.nx_huge_pages=off", true, true, "iTLB multihit mitigation off"},
		{"kvm_intel.vmentry_l1d_flush=never", true, true, "L1TF flush on VM entry off"},
		{"nosmt", true, false, "strengthens, although it starts with no"},
		{"mitigations=auto,no_user_kernel", true, true, "an attack vector off"},
		{"indirect_target_selection=off", true, true, "ITS off"},
		{"audit=0", false, false, "a study toggle"},
	} {
		if got := IsMitigationParam(c.name); got != c.mitigation {
			t.Errorf("IsMitigationParam(%s) = %v, want %v (%s)", c.name, got, c.mitigation, c.why)
		}
		if got := TurnsOff(c.name); got != c.turnOff {
			t.Errorf("TurnsOff(%s) = %v, want %v (%s)", c.name, got, c.turnOff, c.why)
		}
	}
	for _, h := range []string{"nopku", "nosmap", "nosmep"} {
		if !IsHardeningParam(h) {
			t.Errorf("%s: not a hardening parameter", h)
		}
	}
	if IsHardeningParam("nopti") {
		t.Error("nopti is a mitigation, not hardening")
	}
}
