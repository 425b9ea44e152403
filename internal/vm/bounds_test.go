package vm

import (
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/exit"
)

// TestCheckBounds: the lab's two bounds, shared with --prove.
func TestCheckBounds(t *testing.T) {
	for _, tc := range []struct {
		hs, to time.Duration
		want   string
	}{
		{0, 0, ""}, {time.Minute, 10 * time.Minute, ""}, {-time.Second, 0, "--handshake"},
		{0, -time.Second, "--vm-timeout"}, {5 * time.Minute, time.Minute, "longer than --vm-timeout"},
	} {
		err := CheckBounds(tc.hs, tc.to)
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
