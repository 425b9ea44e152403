package run

import (
	"math"
	"testing"
	"time"
)

// TestTook: a lab run took its whole boot, other runs their span; a VM
// wall time that is not a duration (negative, NaN, 30 days or more, as a
// hostile store may hold) is unknown, so the span counts.
func TestTook(t *testing.T) {
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	r := &Run{Started: start, Finished: start.Add(90 * time.Second)}
	if got := r.Took(); got != 90*time.Second {
		t.Errorf("no lab block: %v", got)
	}
	for wall, want := range map[float64]time.Duration{150.5: 150500 * time.Millisecond, -1: 90 * time.Second, math.NaN(): 90 * time.Second, 1e300: 90 * time.Second, 30 * 24 * 3600: 90 * time.Second} {
		r.Lab = &Lab{VMWallS: wall}
		if got := r.Took(); got != want {
			t.Errorf("vm_wall_s %v: took %v, want %v", wall, got, want)
		}
	}
}
