package cli

import (
	"fmt"
	"time"

	"github.com/sectax/sectax/internal/runner"
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

func (p *progress) event(e runner.Event) {
	if !p.active || e.Finished {
		return
	}
	eta := "ETA --:--"
	if e.ETA > 0 {
		eta = "ETA " + clock(e.ETA)
	}
	fmt.Fprintf(p.g.stderr, "\r\033[K[%*d/%d] %s %s %d · %s elapsed · %s",
		len(fmt.Sprint(e.Total)), e.Done+1, e.Total, e.Workload, e.Phase, e.Rep+1, clock(e.Elapsed), eta)
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.g.stderr, "\r\033[K")
	}
}

// clock renders a duration as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
