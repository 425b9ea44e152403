package cli

import (
	"strings"
	"testing"
)

// longRun is a run of the scripted workloads that the plan estimates at
// more than an hour (2 workloads × 3,500 repetitions at the plan's second
// each) but that takes a moment to measure.
var longRun = []string{"run", "--root", wslOn, "--suite", "quick", "--seed", "1", "--no-store", "--runs", "3500", "--warmup", "0"}

// TestLongWorkAsks: work estimated at more than an hour says its
// estimate in the first line and asks first (issue 39): without a
// terminal and without --yes it is refused in one line naming --yes,
// measuring nothing; --yes proceeds; on a terminal "y" proceeds and
// anything else refuses.
func TestLongWorkAsks(t *testing.T) {
	out, errs, code := sectax(t, fixedDeps(fakeRegistry()), longRun...)
	if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 ||
		!strings.HasPrefix(errs, "sectax: this run is estimated ") || !strings.Contains(errs, "give --yes to start it anyway") {
		t.Fatalf("no terminal, no --yes: exit %d, stdout %q, stderr %q; want one line naming --yes, exit 2, nothing measured", code, out, errs)
	}

	out, errs, code = sectax(t, fixedDeps(fakeRegistry()), append(longRun, "--yes")...)
	if code != 0 || !strings.HasPrefix(errs, "sectax: this run is estimated ") || !strings.Contains(strings.SplitN(errs, "\n", 2)[0], "starting (--yes)") ||
		!strings.Contains(out, "alpha") {
		t.Fatalf("--yes: exit %d, stderr %q, stdout %q; want the estimate first and the run measured", code, errs, out)
	}

	for answer, want := range map[string]int{"y\n": 0, "yes\n": 0, "n\n": ExitUsage, "\n": ExitUsage, "": ExitUsage} {
		deps := fixedDeps(fakeRegistry())
		deps.StderrIsTerminal, deps.StdinIsTerminal, deps.Stdin = true, true, strings.NewReader(answer)
		_, errs, code := sectax(t, deps, longRun...)
		if code != want || !strings.HasPrefix(errs, "sectax: this run is estimated ") || !strings.Contains(errs, "Start it? [y/N] ") {
			t.Errorf("answer %q: exit %d, stderr %q; want %d after the question", answer, code, errs, want)
		}
		if want != 0 && !strings.Contains(errs, "not started: ") {
			t.Errorf("answer %q: the refusal does not say so: %q", answer, errs)
		}
	}
}

// TestShortWorkDoesNotAsk: a run under an hour starts without a question,
// also without a terminal.
func TestShortWorkDoesNotAsk(t *testing.T) {
	_, errs, code := sectax(t, fixedDeps(fakeRegistry()), "run", "--root", wslOn, "--suite", "quick", "--seed", "1", "--no-store")
	if code != 0 || strings.Contains(errs, "--yes") || !strings.HasPrefix(errs, "sectax: estimated ") {
		t.Fatalf("exit %d: %q", code, errs)
	}
}
