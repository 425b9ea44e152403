package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

// TestRunEstimate: a run says on stderr how long it is expected to take,
// from the plan at first and from this machine's stored runs of the same
// suite and engine once there are some; -q says nothing.
func TestRunEstimate(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	deps := fixedDeps(workload.NewRegistry(&fake{id: "syscall-basic", base: map[string]float64{"usecs_per_op": 0.25}}))
	ids := 0
	deps.NewRunID = func() string { ids++; return fmt.Sprintf("20261130T090000-00000%d", ids) }
	args := []string{"run", "--suite", "quick", "--only", "syscall-basic", "--runs", "2", "--warmup", "0"}
	_, errOut, code := sectax(t, deps, args...)
	if code != 0 || !strings.Contains(errOut, "sectax: estimated 3 s (from the plan)\n") {
		t.Fatalf("first run: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = sectax(t, deps, args...)
	if code != 0 || !regexp.MustCompile(`sectax: estimated \d+ s \(from 1 past run of the same workloads on this machine\)\n`).MatchString(testutil.Unwrap(errOut)) {
		t.Fatalf("second run: exit %d, stderr %q", code, errOut)
	}
	// Under the precision rule the stored samples project each
	// workload's repetitions (a run of 2 has no interval to project from:
	// a third run has 6).
	if _, errOut, code = sectax(t, deps, "run", "--suite", "quick", "--only", "syscall-basic", "--runs", "6", "--warmup", "0"); code != 0 {
		t.Fatalf("third run: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = sectax(t, deps, "run", "--suite", "quick", "--only", "syscall-basic", "--precision", "2", "--max-time", "1m", "--no-store")
	if code != 0 || !regexp.MustCompile(`sectax: estimated \d+ s, at most 63 s \(from 3 past runs of the same workloads on this machine: the repetitions their samples project for ±2%\)\n`).MatchString(testutil.Unwrap(errOut)) {
		t.Fatalf("--precision: exit %d, stderr %q", code, errOut)
	}
	// Another suite has no past run yet.
	_, errOut, _ = sectax(t, deps, "run", "--suite", "standard", "--only", "syscall-basic", "--runs", "2", "--warmup", "0")
	if !strings.Contains(errOut, "(from the plan)") {
		t.Errorf("standard suite: stderr %q", errOut)
	}
	_, errOut, code = sectax(t, deps, append([]string{"-q"}, args...)...)
	if code != 0 || strings.Contains(errOut, "estimated") {
		t.Errorf("-q: exit %d, stderr %q", code, errOut)
	}
}

// TestCmdEstimate: a command's first run has no estimate (what it takes
// is not known before it runs: no figure from the plan or from other
// runs), and its next run learns from the first; another command has
// none again. The commands are real, and tiny.
func TestCmdEstimate(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	deps := fixedDeps(nil)
	ids := 0
	deps.NewRunID = func() string { ids++; return fmt.Sprintf("20261130T090000-00000%d", ids) }
	cmdRun := func(cmd string) string {
		t.Helper()
		_, errOut, code := sectax(t, deps, "run", "--cmd", cmd, "--runs", "2", "--warmup", "0")
		if code != 0 {
			t.Fatalf("run --cmd %q: exit %d, stderr %q", cmd, code, errOut)
		}
		return errOut
	}
	if e := cmdRun("true"); !strings.Contains(e, "sectax: no estimate (") || strings.Contains(e, "estimated") {
		t.Errorf("first run of true: stderr %q", e)
	}
	if e := cmdRun("true"); !strings.Contains(e, "(from 1 past run of the same workloads on this machine)") {
		t.Errorf("second run of true: stderr %q", e)
	}
	if e := cmdRun("true --other"); !strings.Contains(e, "sectax: no estimate (") {
		t.Errorf("first run of another command: stderr %q", e)
	}
}

// withoutEstimate is stderr without the estimate line a run says at the
// start (sayEstimate), for the tests that check what else it says.
func withoutEstimate(stderr string) string {
	return estimateLine.ReplaceAllString(testutil.Unwrap(stderr), "")
}

var estimateLine = regexp.MustCompile(`(?m)^sectax: (estimated|no estimate) [^\n]*\n`)
