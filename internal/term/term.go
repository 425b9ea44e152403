// Package term is the terminal sectax speaks to (restic's
// internal/ui/termstatus): whether a file is one and how wide it is, and
// the Printer that cli hands to every package below it (ui.Printer):
// notes on standard error wrapped to its width, the status line redrawn
// in place while it is a terminal, and the question before long work
// asked there. It writes only to the writers cli gives it.
package term

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/report"
)

// Printer is the one ui.Printer of a sectax process. Its fields are read
// at each call (cli sets Quiet and Yes from the flags once they are
// parsed); a Printer is safe for concurrent use.
type Printer struct {
	Err io.Writer // standard error: notes, the status line and the question
	// Terminal says Err is a terminal: the status line is drawn.
	Terminal bool
	// Width is Err's width in columns (0: report.TextWidth).
	Width int
	// Quiet says nothing: no note, no status line (-q).
	Quiet bool
	// Yes starts long work without asking (--yes), saying so.
	Yes bool
	// In answers the question when InTerminal (and Terminal) say a person
	// is there to.
	In         io.Reader
	InTerminal bool

	mu    sync.Mutex
	drawn bool
}

// Notef says a note, the status line cleared first, through the one
// sanitiser (it may quote a stored field or a file below --root), wrapped
// to the width (report.NoteText).
func (p *Printer) Notef(format string, a ...any) {
	if p.Quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	io.WriteString(p.Err, report.NoteText(fmt.Sprintf(format, a...), p.Width))
}

// Status redraws the status line (a repetition's progress, a boot) while
// Err is a terminal and not Quiet, cut to one row: a line that wraps
// cannot be redrawn by \r. "" clears it.
func (p *Printer) Status(line string) {
	if !p.Terminal || p.Quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if line == "" {
		p.clearLocked()
		return
	}
	width := p.Width
	if width <= 0 {
		width = report.TextWidth
	}
	fmt.Fprintf(p.Err, "\r\033[K%s", report.Fit(line, width-1))
	p.drawn = true
}

// Clear clears the status line, if one is drawn, before other output.
func (p *Printer) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

func (p *Printer) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.Err, "\r\033[K")
		p.drawn = false
	}
}

// Confirm asks before long work, what (the estimate) its first words:
// Yes answers for the user; no terminal to ask on is a refusal naming
// --yes.
func (p *Printer) Confirm(what string) error {
	if p.Yes {
		p.Notef("%s; starting (--yes)", what)
		return nil
	}
	p.Clear()
	if !p.InTerminal || !p.Terminal || p.In == nil {
		return Refusal(what, false)
	}
	fmt.Fprintf(p.Err, "sectax: %s. Start it? [y/N] ", report.Notice(what))
	line, _ := bufio.NewReader(p.In).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
		return nil
	}
	return Refusal(what, true)
}

// Refusal is the error of work that was not confirmed: what it is and how
// to start it without asking.
func Refusal(what string, terminal bool) error {
	if terminal {
		return exit.Wrap(exit.Usage, fmt.Errorf("not started: %s; give --yes to start it without asking", what))
	}
	return exit.Usagef("%s, and there is no terminal to ask on: give --yes to start it anyway (or --dry-run to see the plan)", what)
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Columns is the width of the terminal w is, 0 for anything else or one
// that does not say.
func Columns(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// TextColumns is the width text on w is laid out for: the terminal's
// when w is one, else $COLUMNS (env) when it is a positive number (as ls
// does: 'COLUMNS=80 sectax compare on off | less'), else 0 (the default,
// report.TextWidth).
func TextColumns(w io.Writer, env string) int {
	if n := Columns(w); n > 0 {
		return n
	}
	if n, err := strconv.Atoi(strings.TrimSpace(env)); err == nil && n > 0 {
		return n
	}
	return 0
}
