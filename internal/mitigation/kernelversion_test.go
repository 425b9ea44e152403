package mitigation

import (
	"slices"
	"testing"
)

// TestFullVersion: rules are keyed on the full version; 6.17.7 is not
// 6.17.0 (issue 37).
func TestFullVersion(t *testing.T) {
	for _, c := range []struct {
		release, min string
		want         bool
	}{
		{"6.17.0", "6.17.7", false},
		{"6.17.6-arch1-1", "6.17.7", false},
		{"6.17.7", "6.17.7", true},
		{"6.17.12-300.fc43.x86_64", "6.17.7", true},
		{"6.18.0", "6.17.7", true},
		{"6.17", "6.17", true},
		{"6.17-rc3", "6.17.7", false},
		{"6.16.9", "6.17", false},
		{"6.17.0-5-generic", "6.17", true},
	} {
		if got := kbAtLeast(c.release, c.min, false); got != c.want {
			t.Errorf("%s >= %s: %v, want %v", c.release, c.min, got, c.want)
		}
	}
	for _, c := range []struct {
		release, version string
		hidden           bool
		stable           string
	}{
		{"6.17.0-5-generic", "Linux version 6.17.0-5-generic (buildd@lcy02-amd64-001) (x86_64-linux-gnu-gcc-15) #5-Ubuntu SMP PREEMPT_DYNAMIC", true, ""},
		{"6.1.0-57-amd64", "Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)", true, "6.1.192"},
		{"6.17.7", "", false, ""},
		{"6.12.117+deb13-amd64", "", false, ""},
		{"6.17.0", "", false, ""},
	} {
		if got := StableHidden(c.release); got != c.hidden {
			t.Errorf("StableHidden(%q) = %v, want %v", c.release, got, c.hidden)
		}
		if got := StableFromVersion(c.release, c.version); got != c.stable {
			t.Errorf("StableFromVersion(%q) = %q, want %q", c.release, got, c.stable)
		}
	}
}

// TestStableLevel: on Ubuntu's 6.17.0-N-generic the model cannot tell
// 6.17.0 from 6.17.7, so vmscape is uncertain; Debian says its level in
// /proc/version, and the model follows it.
func TestStableLevel(t *testing.T) {
	kb := mustKB(t)
	ubuntu := modelMachine("x86", "6.17.0-5-generic", modelIntel)
	if got := kb.Uncertain(ubuntu); !slices.Equal(got, []string{"vmscape"}) {
		t.Errorf("Ubuntu 6.17.0-5-generic: uncertain %v, want [vmscape]", got)
	}
	if got := kb.Uncertain(modelMachine("x86", "6.17.8", modelIntel)); got != nil {
		t.Errorf("6.17.8: uncertain %v", got)
	}
	if got := kb.Uncertain(modelMachine("x86", "6.18.0-1-generic", modelIntel)); got != nil {
		t.Errorf("6.18.0-1-generic: uncertain %v (no rule changed within 6.18)", got)
	}
	noGuest := ParseCmdline("mitigations=auto,no_guest_host,no_guest_guest").Params
	deb := modelMachine("x86", "6.17.0-1-amd64", modelIntel)
	deb.Version = "Linux version 6.17.0-1-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.17.9-1 (2025-11-30)"
	if !kb.Predict(deb, noGuest).Of("vmscape").Off || kb.Uncertain(deb) != nil {
		t.Errorf("Debian 6.17.9 behind 6.17.0-1-amd64: vmscape %+v, uncertain %v", kb.Predict(deb, noGuest).Of("vmscape"), kb.Uncertain(deb))
	}
	deb.Version = "Linux version 6.17.0-1-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.17.2-1 (2025-10-12)"
	if kb.Predict(deb, noGuest).Of("vmscape").Off {
		t.Errorf("Debian 6.17.2: vmscape given up by no-guest, but the vectors reach it from 6.17.7")
	}
}
