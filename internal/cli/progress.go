package cli

import (
	"io"

	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/term"
)

// laidOut is the one printer with what only measuring has: each measured
// run laid out in --format on stdout or -o.
type laidOut struct {
	*term.Printer
	g    *Globals
	show func(io.Writer, *run.Run) error // the layout of a run (nil: --format of RunFormats)
}

// laidOut is g's printer laying runs out with show (nil: --format).
func (g *Globals) laidOut(show func(io.Writer, *run.Run) error) measure.Printer {
	return laidOut{Printer: g.out, g: g, show: show}
}

func (p laidOut) Result(r *run.Run) error {
	p.Clear()
	w, finish, err := p.g.output()
	if err != nil {
		return err
	}
	if p.show != nil {
		return finish(p.show(w, r))
	}
	return finish(report.RunFormats.Render(w, p.g.Format, r, report.Options{}))
}
