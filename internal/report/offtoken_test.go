package report

import "testing"

// TestIsOffTokenAsksTheClassifier: the "gives up" sentence uses the
// classifier's answer, not a guess from a "no" prefix, which had nosmt
// (which strengthens) giving protection up and missed tsx=on and
// kvm_intel.vmentry_l1d_flush=never.
func TestIsOffTokenAsksTheClassifier(t *testing.T) {
	for tok, want := range map[string]bool{
		"mitigations=off": true, "nopti": true, "spectre_v2=off": true,
		"nosmt": false, "tsx=on": true, "kvm_intel.vmentry_l1d_flush=never": true,
		"mitigations=auto,no_user_user": true, "nosmap": false, "spectre_v2=retpoline": false,
	} {
		if got := isOffToken(tok); got != want {
			t.Errorf("isOffToken(%s) = %v, want %v", tok, got, want)
		}
	}
}
