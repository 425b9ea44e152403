package lab

import (
	"strings"
	"testing"
)

// TestBounds: --boots has a maximum, named when exceeded
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
}
