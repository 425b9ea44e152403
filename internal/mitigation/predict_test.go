package mitigation

import (
	"slices"
	"testing"
)

// TestExpectedOff: mitigations=off turns every mitigated file off; mds=off
// alone leaves mds on while mmio_stale_data keeps the shared VERW clear,
// though Targets still names mds as its parameter's file; a file that is
// not affected is never expected to change.
func TestExpectedOff(t *testing.T) {
	kb, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	vulns := []Vulnerability{
		ParseVulnerability("mds", "Mitigation: Clear CPU buffers; SMT vulnerable"),
		ParseVulnerability("mmio_stale_data", "Mitigation: Clear CPU buffers; SMT vulnerable"),
		ParseVulnerability("meltdown", "Not affected"),
	}
	m := NewMachine("x86", "GenuineIntel", "6", "6.8.0", "native", vulns)
	params := func(s string) []Param {
		p, err := ParseParams(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := kb.ExpectedOff(m, params("mitigations=off")); !slices.Equal(got, []string{"mds", "mmio_stale_data"}) {
		t.Errorf("mitigations=off: %v", got)
	}
	if got := kb.ExpectedOff(m, params("mds=off")); len(got) != 0 {
		t.Errorf("mds=off: %v, want nothing (mmio_stale_data keeps the VERW clear)", got)
	}
	if got := kb.Targets(m, params("mds=off")); len(got) != 1 || got[0].Name != "mds" || got[0].By != "mds=off" {
		t.Errorf("Targets(mds=off) = %+v", got)
	}
}
