package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/exit"
)

// TestBounds: --boots and --budget have a maximum, named when exceeded
// (lab --boots 1000000000 planned every boot and died out of memory).
func TestBounds(t *testing.T) {
	for _, n := range []int{0, -1, MaxBoots + 1, 1_000_000_000} {
		if err := CheckBoots(n); err == nil || !strings.Contains(err.Error(), "1 to 50") {
			t.Errorf("--boots %d: %v", n, err)
		}
	}
	if err := CheckBoots(MaxBoots); err != nil {
		t.Error(err)
	}
	if err := (Adaptive{TargetPct: 2, Budget: 1 << 62}).Check(); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("huge budget: %v", err)
	}
	if err := (Adaptive{TargetPct: 2, Budget: 2 * time.Hour}).Check(); err != nil {
		t.Error(err)
	}
}

// TestCheckVMBounds: the lab's two bounds, shared with --prove.
func TestCheckVMBounds(t *testing.T) {
	for _, tc := range []struct {
		hs, to time.Duration
		want   string
	}{
		{0, 0, ""}, {time.Minute, 10 * time.Minute, ""}, {-time.Second, 0, "--handshake"},
		{0, -time.Second, "--vm-timeout"}, {5 * time.Minute, time.Minute, "longer than --vm-timeout"},
	} {
		err := CheckVMBounds(tc.hs, tc.to)
		if (tc.want == "") != (err == nil) || err != nil && (!strings.Contains(err.Error(), tc.want) || exit.Of(err) != exit.Usage) {
			t.Errorf("%s %s: %v", tc.hs, tc.to, err)
		}
	}
	for cpu, ok := range map[string]bool{"": true, "Cascadelake-Server": true, "Skylake-Client-v1,+pcid": true, strings.Repeat("x", MaxCPUModel+1): false, "a b": false, "x\x1b[2J": false} {
		if err := CheckCPUModel(cpu); (err == nil) != ok {
			t.Errorf("--cpu %q: %v", cpu, err)
		}
	}
}
