package proof

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/vm"
)

// TestNearestCPU: the QEMU model nearest a CPU, among the models the
// installed QEMU has; the lab's model when nothing fits.
func TestNearestCPU(t *testing.T) {
	qemu72 := []string{"EPYC", "EPYC-Rome", "EPYC-Milan", "Cascadelake-Server", "Cooperlake", "Skylake-Server", "Skylake-Client", "Icelake-Server", "Haswell", "Broadwell", "Dhyana", vm.TCGCPU}
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
		{"GenuineIntel", "6", "1", "1", vm.TCGCPU},
		{"ARM", "8", "1", "1", vm.TCGCPU},
	} {
		cpu := sysinfo.CPU{Vendor: tc.vendor, Family: tc.family, Model: tc.model, Stepping: tc.stepping}
		if got := NearestCPU(cpu, qemu72); got != tc.want {
			t.Errorf("%s family %s model %s stepping %s: %s, want %s", tc.vendor, tc.family, tc.model, tc.stepping, got, tc.want)
		}
	}
}

// TestTopology: a proof boots as the host runs: two threads a core where
// the host has SMT active, one otherwise; clearcpuid=hypervisor only on a
// host that is no VM guest (nor WSL).
func TestTopology(t *testing.T) {
	on, off := true, false
	cases := []struct {
		name    string
		snap    *sysinfo.Snapshot
		threads int
		bare    bool
	}{
		{"bare metal with SMT", &sysinfo.Snapshot{SMT: sysinfo.SMT{Control: "on", Active: &on}}, 2, true},
		{"bare metal, SMT off", &sysinfo.Snapshot{SMT: sysinfo.SMT{Control: "off", Active: &off}}, 1, true},
		{"VM guest with SMT", &sysinfo.Snapshot{SMT: sysinfo.SMT{Control: "on", Active: &on}, Hypervisor: sysinfo.Hypervisor{Guest: true}}, 2, false},
		{"WSL", &sysinfo.Snapshot{WSL: &sysinfo.WSL{}}, 1, false},
		{"unknown", nil, 1, false},
	}
	for _, c := range cases {
		if th, bare := Topology(c.snap); th != c.threads || bare != c.bare {
			t.Errorf("%s: threads %d bare %v, want %d %v", c.name, th, bare, c.threads, c.bare)
		}
	}
	s := &Session{threads: 2, bare: true, req: Request{SMP: 2}}
	if got := s.bootLine(" mitigations=off "); got != HypervisorOff+" mitigations=off" {
		t.Errorf("boot line %q", got)
	}
	if v := s.View(); !strings.Contains(v, "-smp 2,threads=2") || !strings.Contains(v, HypervisorOff) {
		t.Errorf("view %q", v)
	}
	if k := s.key(""); k.Threads != 2 || k.Cmdline != HypervisorOff {
		t.Errorf("key %+v", k)
	}
}
