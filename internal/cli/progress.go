package cli

import (
	"fmt"

	"github.com/sectax/sectax/internal/measure"
)

// progress draws one status line on stderr while stderr is a terminal (and
// not -q); otherwise it prints nothing.
type progress struct {
	g      *Globals
	active bool
	drawn  bool
}

func newProgress(g *Globals) *progress {
	return &progress{g: g, active: g.deps.StderrIsTerminal && !g.Quiet}
}

func (p *progress) event(e measure.Event) {
	if !p.active || e.Finished {
		return
	}
	eta := "ETA --:--"
	if e.ETA > 0 {
		eta = "ETA " + measure.Clock(e.ETA)
	}
	fmt.Fprintf(p.g.stderr, "\r\033[K[%s] %s %s %d · %s elapsed · %s",
		e.Progress(), e.Workload, e.Phase, e.Rep+1, measure.Clock(e.Elapsed), eta)
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.g.stderr, "\r\033[K")
	}
}
