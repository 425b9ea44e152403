package compare

import (
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
)

// TestStateOfOneReader: a change without recorded states (a run stored
// before they were) is read by mitigation.ParseVulnerability, the one
// reader of a vulnerability line, not by a prefix of its own: the lines a
// prefix reading got wrong ("Processor vulnerable", "KVM: Mitigation: …",
// "Mitigation: Vulnerable…") are read as sysinfo reads them.
func TestStateOfOneReader(t *testing.T) {
	for _, c := range []struct {
		name, state, raw string
		want             mitigation.State
	}{
		{"meltdown", "", "Mitigation: PTI", mitigation.Mitigated},
		{"meltdown", "", "Vulnerable", mitigation.Vulnerable},
		{"mds", "", "Not affected", mitigation.NotAffected},
		{"srbds", "", "Processor vulnerable", mitigation.Vulnerable},
		{"itlb_multihit", "", "KVM: Mitigation: VMX disabled", mitigation.Mitigated},
		{"spectre_v2", "vulnerable", "Mitigation: Retpolines", mitigation.Vulnerable},
		{"x", "", "garbage", mitigation.Unknown},
	} {
		if got := stateOf(c.name, c.state, c.raw); got != c.want {
			t.Errorf("stateOf(%q, %q, %q) = %s, want %s", c.name, c.state, c.raw, got, c.want)
		}
		if c.state == "" && mitigation.ParseVulnerability(c.name, c.raw).State != stateOf(c.name, c.state, c.raw) {
			t.Errorf("%q: stateOf and ParseVulnerability differ", c.raw)
		}
	}
}
