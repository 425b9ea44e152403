package proof

import (
	"testing"

	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/sysinfo"
)

// TestNearestCPU: the QEMU model nearest a CPU, among the models the
// installed QEMU has; the lab's model when nothing fits.
func TestNearestCPU(t *testing.T) {
	qemu72 := []string{"EPYC", "EPYC-Rome", "EPYC-Milan", "Cascadelake-Server", "Cooperlake", "Skylake-Server", "Skylake-Client", "Icelake-Server", "Haswell", "Broadwell", "Dhyana", lab.TCGCPU}
	for _, tc := range []struct {
		vendor, family, model, stepping string
		want                            string
	}{
		{"AuthenticAMD", "26", "2", "1", "EPYC-Milan"}, // Zen 5: QEMU 7.2 has no Genoa
		{"AuthenticAMD", "23", "49", "0", "EPYC-Rome"},
		{"AuthenticAMD", "23", "1", "2", "EPYC"},
		{"GenuineIntel", "6", "85", "7", "Cascadelake-Server"},
		{"GenuineIntel", "6", "85", "11", "Cooperlake"},
		{"GenuineIntel", "6", "85", "4", "Skylake-Server"},
		{"GenuineIntel", "6", "207", "2", "Icelake-Server"}, // Emerald Rapids: no SapphireRapids in this list
		{"GenuineIntel", "6", "60", "3", "Haswell"},
		{"HygonGenuine", "24", "0", "1", "Dhyana"},
		{"GenuineIntel", "6", "1", "1", lab.TCGCPU},
		{"ARM", "8", "1", "1", lab.TCGCPU},
	} {
		cpu := sysinfo.CPU{Vendor: tc.vendor, Family: tc.family, Model: tc.model, Stepping: tc.stepping}
		if got := NearestCPU(cpu, qemu72); got != tc.want {
			t.Errorf("%s family %s model %s stepping %s: %s, want %s", tc.vendor, tc.family, tc.model, tc.stepping, got, tc.want)
		}
	}
}
