//go:build !linux

package sysinfo

import "context"

// runProgram runs nothing on an operating system other than Linux, where
// Collect does not run either (collect_other.go).
func runProgram(context.Context, []string, string, string, ...string) ([]byte, error) {
	return nil, ErrNeedsLinux
}

// prctlSpec leaves the control unasked outside Linux.
func prctlSpec(sc *SpecCtl, _ int) { sc.PrctlError = "ENOSYS" }

// unameMachine is not asked outside Linux.
func unameMachine() string { return "" }
