package cli

import (
	"strings"
	"testing"
)

// readmeOpening is the command whose output the README opens with
// (issue 48: the front door shows what sectax tells you first).
const readmeOpening = "compare baseline:study-wsl3-on baseline:study-wsl3-off"

// TestReadmeOpeningIsReal: the output the README opens with is the real
// command's, trimmed: every line it shows is a line of today's output, in
// the same order, or the start of one when it ends in " …" (a cut line).
func TestReadmeOpeningIsReal(t *testing.T) {
	lines := readLines(t, readmePath)
	shown, ok := shownOutput(lines, readmeOpening)
	if !ok {
		t.Fatalf("README.md no longer shows $ sectax %s: update readmeOpening", readmeOpening)
	}
	if i := strings.Index(strings.Join(lines, "\n"), "$ sectax "+readmeOpening); i < 0 || strings.Count(strings.Join(lines, "\n")[:i], "\n") >= 40 {
		t.Errorf("README.md's opening output starts after line 40")
	}
	e := newCLIEnv(t)
	code, stdout, stderr := e.run(strings.Fields(readmeOpening)...)
	if code != 0 {
		t.Fatalf("sectax %s: exit %d: %s", readmeOpening, code, stderr)
	}
	real := strings.Split(stdout, "\n")
	at := 0
	for _, l := range strings.Split(shown, "\n") {
		prefix, cut := strings.CutSuffix(l, " …")
		found := false
		for ; at < len(real); at++ {
			if real[at] == l || cut && strings.HasPrefix(real[at], prefix+" ") {
				found = true
				at++
				break
			}
		}
		if !found {
			t.Errorf("README.md's opening shows %q, which is not (in this order) a line of the output of sectax %s:\n%s", l, readmeOpening, stdout)
			return
		}
	}
}
