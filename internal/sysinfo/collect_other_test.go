//go:build !linux

package sysinfo

import (
	"errors"
	"testing"
)

func TestCollectNeedsLinux(t *testing.T) {
	if _, err := Collect("testdata/wsl2-intel-on"); !errors.Is(err, ErrNeedsLinux) {
		t.Fatalf("Collect error = %v, want ErrNeedsLinux", err)
	}
}
