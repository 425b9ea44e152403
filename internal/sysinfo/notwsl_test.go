package sysinfo

import (
	"path/filepath"
	"testing"
)

// TestNotWSL: the release below a native root, none below a WSL root or a
// root that cannot be read.
func TestNotWSL(t *testing.T) {
	if got := NotWSL(filepath.Join("testdata", "intel-baremetal")); got == "" {
		t.Error("a native machine's release was not returned")
	} else if v, _ := WSLKernel(got); v != 0 {
		t.Errorf("returned %q, a WSL release", got)
	}
	for _, root := range []string{filepath.Join("testdata", "wsl2-intel-on"), filepath.Join("testdata", "missing")} {
		if got := NotWSL(root); got != "" {
			t.Errorf("NotWSL(%s) = %q, want \"\"", root, got)
		}
	}
}
