package measure

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// TestSetAffinity pins this process to one allowed CPU and restores it.
func TestSetAffinity(t *testing.T) {
	var orig unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		t.Skip(err)
	}
	allowed := cpuSetList(&orig)
	defer func() {
		if err := SetAffinity(allowed); err != nil {
			t.Fatal(err)
		}
	}()
	if err := SetAffinity(allowed[:1]); err != nil {
		t.Fatal(err)
	}
	var now unix.CPUSet
	unix.SchedGetaffinity(0, &now)
	if got := cpuSetList(&now); !cmp.Equal(got, allowed[:1]) {
		t.Errorf("affinity = %v, want %v", got, allowed[:1])
	}
	if err := SetAffinity([]int{4095}); err == nil {
		t.Error("pinning to CPU 4095 should fail")
	}
}
