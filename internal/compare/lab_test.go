package compare

import (
	"slices"
	"testing"

	"github.com/sectax/sectax/internal/run"
)

func TestAccelerators(t *testing.T) {
	bare := &run.Run{ID: "bare"}
	kvm := &run.Run{ID: "kvm", Lab: &run.Lab{Accel: "kvm"}}
	tcg := &run.Run{ID: "tcg", Lab: &run.Lab{Accel: "tcg"}}
	for _, tc := range []struct {
		name       string
		runs       []*run.Run
		accels     []string
		tcg, mixed bool
	}{
		{"bare only", []*run.Run{bare, bare}, []string{"none"}, false, false},
		{"kvm only", []*run.Run{kvm, kvm}, []string{"kvm"}, false, false},
		{"tcg only", []*run.Run{tcg, tcg}, []string{"tcg"}, true, false},
		{"tcg and kvm", []*run.Run{kvm, tcg}, []string{"kvm", "tcg"}, true, true},
		{"vm and bare", []*run.Run{bare, kvm}, []string{"kvm", "none"}, false, true},
		{"empty", nil, nil, false, false},
	} {
		accels, isTCG, mixed := Accelerators(tc.runs)
		if !slices.Equal(accels, tc.accels) || isTCG != tc.tcg || mixed != tc.mixed {
			t.Errorf("%s: got %v tcg=%v mixed=%v, want %v tcg=%v mixed=%v", tc.name, accels, isTCG, mixed, tc.accels, tc.tcg, tc.mixed)
		}
	}
}
