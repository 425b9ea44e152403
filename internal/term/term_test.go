package term

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/ui"
)

var _ ui.Printer = (*Printer)(nil)

// TestPrinterStatusLine: the status line is cleared before a note and
// when told "", nothing is drawn without a terminal or under Quiet, and
// no note is said under Quiet.
func TestPrinterStatusLine(t *testing.T) {
	var errs bytes.Buffer
	p := &Printer{Err: &errs, Terminal: true, Width: 40}
	p.Status("[1/2] alpha measure 1")
	p.Notef("a note")
	p.Status("[2/2] alpha measure 2")
	p.Status("")
	p.Status("")
	if want := "\r\x1b[K[1/2] alpha measure 1\r\x1b[Ksectax: a note\n\r\x1b[K[2/2] alpha measure 2\r\x1b[K"; errs.String() != want {
		t.Errorf("terminal: %q, want %q", errs.String(), want)
	}
	errs.Reset()
	p.Terminal = false
	p.Status("[1/2] alpha measure 1")
	p.Notef("a note")
	if errs.String() != "sectax: a note\n" {
		t.Errorf("no terminal: %q", errs.String())
	}
	errs.Reset()
	p.Terminal, p.Quiet = true, true
	p.Status("[1/2] alpha measure 1")
	p.Notef("a note")
	if errs.Len() != 0 {
		t.Errorf("quiet: %q", errs.String())
	}
}

// TestPrinterStatusFitsOneRow: a status line wider than the terminal is
// cut to one row (a wrapped line cannot be redrawn by \r); a note wraps.
func TestPrinterStatusFitsOneRow(t *testing.T) {
	var errs bytes.Buffer
	p := &Printer{Err: &errs, Terminal: true, Width: 20}
	p.Status(strings.Repeat("x", 50))
	if got := strings.TrimPrefix(errs.String(), "\r\x1b[K"); got != strings.Repeat("x", 18)+"…" {
		t.Errorf("status %q, want 19 columns ending in …", got)
	}
	errs.Reset()
	p.Notef("one two three four five six")
	if got := errs.String(); got != "\r\x1b[Ksectax: one two\n  three four five\n  six\n" {
		t.Errorf("note %q", got)
	}
}

// TestPrinterConfirm: --yes goes on and says so; without a terminal the
// answer is a usage error naming --yes; on a terminal "y" goes on and
// anything else refuses.
func TestPrinterConfirm(t *testing.T) {
	var errs bytes.Buffer
	p := &Printer{Err: &errs, Yes: true}
	if err := p.Confirm("this run is about 2 h"); err != nil || errs.String() != "sectax: this run is about 2 h; starting (--yes)\n" {
		t.Errorf("--yes: %v, %q", err, errs.String())
	}
	p = &Printer{Err: &errs}
	if err := p.Confirm("this run is about 2 h"); exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "no terminal to ask on: give --yes") {
		t.Errorf("no terminal: %v", err)
	}
	for answer, ok := range map[string]bool{"y\n": true, "YES\n": true, "n\n": false, "\n": false, "": false} {
		errs.Reset()
		p := &Printer{Err: &errs, Terminal: true, InTerminal: true, In: strings.NewReader(answer)}
		err := p.Confirm("this run is about 2 h")
		if (err == nil) != ok || !strings.HasPrefix(errs.String(), "sectax: this run is about 2 h. Start it? [y/N] ") {
			t.Errorf("answer %q: %v, asked %q", answer, err, errs.String())
		}
		if err != nil && (exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "give --yes to start it without asking")) {
			t.Errorf("answer %q: refusal %v", answer, err)
		}
	}
}

// TestTextColumns: text on what is not a terminal is laid out at
// $COLUMNS when that is a positive number, else at the default (0).
func TestTextColumns(t *testing.T) {
	for env, want := range map[string]int{"": 0, "80": 80, " 120 ": 120, "0": 0, "-5": 0, "wide": 0} {
		if got := TextColumns(&bytes.Buffer{}, env); got != want {
			t.Errorf("COLUMNS=%q: %d, want %d", env, got, want)
		}
	}
}

// TestNotATerminal: a regular file, a pipe and a buffer are no terminal
// and have no columns.
func TestNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, x := range map[string]any{"file": f, "pipe": w, "buffer": &bytes.Buffer{}} {
		if IsTerminal(x) {
			t.Errorf("%s is a terminal", name)
		}
	}
	if Columns(f) != 0 || Columns(w) != 0 {
		t.Error("a file or pipe has columns")
	}
}
