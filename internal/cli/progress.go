package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
)

// printer is cli's measure.Printer, the one way output comes back from
// measure, campaign and lab: notices on stderr (not under -q), one status
// line of progress while stderr is a terminal, each run laid out in
// --format on stdout or -o, and the question before long work.
type printer struct {
	g      *Globals
	active bool
	drawn  bool
	show   func(io.Writer, *run.Run) error // the layout of a run (nil: --format of RunFormats)
}

func (g *Globals) printer() *printer {
	return &printer{g: g, active: g.deps.StderrIsTerminal && !g.Quiet}
}

func (p *printer) Notef(format string, a ...any) {
	p.clear()
	p.g.notice(format, a...)
}

func (p *printer) Progress(e measure.Event) {
	if !p.active || e.Finished {
		return
	}
	// One row, never wrapped: a line that wraps cannot be redrawn by \r.
	width := p.g.deps.StderrWidth
	if width <= 0 {
		width = report.TextWidth
	}
	fmt.Fprintf(p.g.stderr, "\r\033[K%s", report.Fit(e.Line(), width-1))
	p.drawn = true
}

func (p *printer) clear() {
	if p.drawn {
		fmt.Fprint(p.g.stderr, "\r\033[K")
		p.drawn = false
	}
}

func (p *printer) Result(r *run.Run) error {
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

// Confirm asks on the terminal (stdin and stderr) before long work: the
// estimate is the question's first words. --yes answers for the user; no
// terminal to ask on is a refusal naming --yes.
func (p *printer) Confirm(what string) error {
	p.clear()
	if p.g.Yes {
		p.g.notice("%s; starting (--yes)", what)
		return nil
	}
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
