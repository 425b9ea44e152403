package cli

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/testutil"
)

// textReader reports whether args run a command that only reads and
// prints text on standard output, so that running it again changes
// nothing: each is checked at both widths (checkTextWidths).
func textReader(args []string) bool {
	var words []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--db", "--root", "--format", "--target", "--expect", "--kernel", "--accel", "--cpu", "--on", "--off", "--margin", "--alpha", "--baseline":
			if a == "--format" && i+1 < len(args) && args[i+1] != "text" {
				return false
			}
			i++
		case "-o", "--output", "--png", "--prove-cache":
			return false
		case "--help", "-h":
			return false // cobra's help, not sectax's text
		default:
			if v, ok := strings.CutPrefix(a, "--format="); ok && v != "text" {
				return false
			}
			if !strings.HasPrefix(a, "-") { // a flag without a value (--no-color, -q) is no word
				words = append(words, a)
			}
		}
	}
	if len(words) == 0 {
		return false
	}
	sub := ""
	if len(words) > 1 {
		sub = words[1]
	}
	switch words[0] {
	case "env", "workloads", "list", "show", "compare", "baselines", "advise", "verify", "decide", "fleet":
		return true
	case "attribute":
		return sub == "plan" || sub == "report"
	case "campaign":
		return sub == "status" || sub == "report" || (sub == "start" && slices.Contains(words, "--dry-run"))
	case "wslconfig":
		return sub == "show" || sub == "find"
	case "lab":
		return slices.Contains(words, "--dry-run")
	}
	return false
}

// heldOutWidth is the width every text output is checked at besides the
// default (report.TextWidth) that its goldens hold: the held-out check
// of issue 49.
const heldOutWidth = 80

// checkTextWidths: the text out that args printed at the default width,
// and what they print at heldOutWidth columns (notes on stderr too, but
// the one-line error), hold no line wider than that but a command line
// to copy (testutil.CopyLine). Every test that
// runs a command through sectax or cliEnv.run checks it.
func checkTextWidths(t *testing.T, deps Deps, args []string, out string) {
	t.Helper()
	if !textReader(args) || deps.StdoutWidth != 0 {
		return
	}
	for _, l := range testutil.WideLines(out, report.TextWidth) {
		t.Errorf("sectax %q at %d columns: line %s", args, report.TextWidth, l)
	}
	deps.StdoutWidth, deps.StderrWidth = heldOutWidth, heldOutWidth
	var narrow, errb bytes.Buffer
	code := mainWith(context.Background(), args, &narrow, &errb, deps)
	for _, l := range testutil.WideLines(narrow.String(), heldOutWidth) {
		t.Errorf("sectax %q at %d columns: line %s", args, heldOutWidth, l)
	}
	notes := errb.String()
	if code != ExitOK { // the error is one line whatever its length
		notes = notes[:strings.LastIndex(strings.TrimSuffix(notes, "\n"), "\n")+1]
	}
	for _, l := range testutil.WideLines(notes, heldOutWidth) {
		t.Errorf("sectax %q at %d columns: note %s", args, heldOutWidth, l)
	}
}
