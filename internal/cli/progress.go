package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
)

// printer is cli's ui.Printer, made once with the root command and kept
// (Globals.out): the one way the packages below cli speak. Notes go to
// stderr (not under -q), the status line is redrawn in place while stderr
// is a terminal, and the question before long work is asked on the
// terminal.
type printer struct {
	g     *Globals
	mu    sync.Mutex
	drawn bool
}

// Notef says a note on stderr, the status line cleared first, through
// the one sanitiser (it may quote a stored field or a file below --root),
// wrapped to stderr's width (report.NoteText).
func (p *printer) Notef(format string, a ...any) {
	if p.g.Quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	io.WriteString(p.g.stderr, report.NoteText(fmt.Sprintf(format, a...), p.g.deps.StderrWidth))
}

// Status redraws the status line (a repetition's progress) while stderr
// is a terminal and not -q; "" clears it.
func (p *printer) Status(line string) {
	if !p.g.deps.StderrIsTerminal || p.g.Quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if line == "" {
		p.clearLocked()
		return
	}
	// One row, never wrapped: a line that wraps cannot be redrawn by \r.
	width := p.g.deps.StderrWidth
	if width <= 0 {
		width = report.TextWidth
	}
	fmt.Fprintf(p.g.stderr, "\r\033[K%s", report.Fit(line, width-1))
	p.drawn = true
}

func (p *printer) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

func (p *printer) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.g.stderr, "\r\033[K")
		p.drawn = false
	}
}

// Confirm asks on the terminal (stdin and stderr) before long work: the
// estimate is the question's first words. --yes answers for the user; no
// terminal to ask on is a refusal naming --yes.
func (p *printer) Confirm(what string) error {
	if p.g.Yes {
		p.Notef("%s; starting (--yes)", what)
		return nil
	}
	p.clear()
	d := p.g.deps
	if !d.StdinIsTerminal || !d.StderrIsTerminal || d.Stdin == nil {
		return measure.Refusal(what, false)
	}
	fmt.Fprintf(p.g.stderr, "sectax: %s. Start it? [y/N] ", report.Notice(what))
	line, _ := bufio.NewReader(d.Stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
		return nil
	}
	return measure.Refusal(what, true)
}

// laidOut is the one printer with what only measuring has: each measured
// run laid out in --format on stdout or -o.
type laidOut struct {
	*printer
	show func(io.Writer, *run.Run) error // the layout of a run (nil: --format of RunFormats)
}

// laidOut is g's printer laying runs out with show (nil: --format).
func (g *Globals) laidOut(show func(io.Writer, *run.Run) error) measure.Printer {
	return laidOut{printer: g.out, show: show}
}

func (p laidOut) Result(r *run.Run) error {
	p.clear()
	w, finish, err := p.g.output()
	if err != nil {
		return err
	}
	if p.show != nil {
		return finish(p.show(w, r))
	}
	return finish(report.RunFormats.Render(w, p.g.Format, r, report.Options{}))
}
