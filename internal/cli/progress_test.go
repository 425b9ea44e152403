package cli

import (
	"bytes"
	"testing"
)

// TestProgressOnePrinter: the one printer clears its status line before a
// note (also one said through g.notice) and when told "", draws nothing
// without a terminal or under -q, and says no note under -q.
func TestProgressOnePrinter(t *testing.T) {
	var errs bytes.Buffer
	g := &Globals{stderr: &errs, deps: Deps{StderrIsTerminal: true, StderrWidth: 40}}
	newRootCmd(g)
	g.out.Status("[1/2] alpha measure 1")
	g.notice("a note")
	g.out.Status("[2/2] alpha measure 2")
	g.out.Status("")
	g.out.Status("")
	if want := "\r\x1b[K[1/2] alpha measure 1\r\x1b[Ksectax: a note\n\r\x1b[K[2/2] alpha measure 2\r\x1b[K"; errs.String() != want {
		t.Errorf("terminal: %q, want %q", errs.String(), want)
	}
	errs.Reset()
	g.deps.StderrIsTerminal = false
	g.out.Status("[1/2] alpha measure 1")
	g.out.Notef("a note")
	if errs.String() != "sectax: a note\n" {
		t.Errorf("no terminal: %q", errs.String())
	}
	errs.Reset()
	g.deps.StderrIsTerminal, g.Quiet = true, true
	g.out.Status("[1/2] alpha measure 1")
	g.notice("a note")
	if errs.Len() != 0 {
		t.Errorf("-q: %q", errs.String())
	}
}
