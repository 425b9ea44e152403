package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestCountsBounded: every count a user types has a maximum, checked when
// the flags are parsed (exit 2, one line naming it), before any work; the
// whole test runs under a 256 MiB soft memory limit (run --warmup
// 1000000000 grew to 24 GB; --runs, crosscheck --runs and lab --boots died
// out of memory).
func TestCountsBounded(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	e := newCLIEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--only", "syscall-basic", "--warmup", "1000000000"}, "at most 1000"},
		{[]string{"run", "--only", "syscall-basic", "--runs", "1000000000"}, "at most 10000"},
		{[]string{"crosscheck", "--only", "syscall-basic", "--runs", "1000000000"}, "at most 10000"},
		{[]string{"attribute", "probes", "--runs", "1000000000"}, "at most 10000"},
		{[]string{"lab", "--kernel", "/nonexistent", "--boots", "1000000000"}, "1 to 50"},
		{[]string{"campaign", "start", "--via", "manual", "--boots", "1000000000"}, "1 to 50"},
		{[]string{"lab", "--kernel", "/nonexistent", "--target-ci", "2", "--budget", "100000h"}, "at most"},
	} {
		code, _, stderr := e.run(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("sectax %s: exit %d, stderr %q; want exit 2 naming %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}
