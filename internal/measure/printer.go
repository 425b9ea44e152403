package measure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/hostid"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/workload"
)

// Printer is where the output of measuring goes, handed down from the
// command line to a measuring session, a campaign and a lab: the one
// ui.Printer (notes, the status line of progress, the question before
// long work) and the layout of a measured run, which only measuring has.
// cli implements it, since only cli prints. A nil Printer is never
// passed; Discard says nothing.
type Printer interface {
	ui.Printer
	// Result lays out a measured run where the command's output goes
	// (stdout or -o), also an interrupted one: nothing finished is lost.
	Result(*run.Run) error
}

// LongWork is how long a piece of work may be estimated at before it is
// confirmed first (ui.Printer.Confirm).
const LongWork = time.Hour

// Discard is a Printer that says nothing, shows nothing, lays out nothing
// and goes on without asking.
type Discard struct{ ui.Discard }

func (Discard) Result(*run.Run) error { return nil }

// WordsOnly is a Printer that says and shows what its ui.Printer does and
// lays out no run (a guest's measuring, whose result is the run it
// returns; tests with a ui.Recorder).
type WordsOnly struct{ ui.Printer }

func (WordsOnly) Result(*run.Run) error { return nil }

// Saver is a Sink that says, once the run has been laid out, what became
// of it: nil when it is stored, else an error naming where it went
// instead (store.Recorder).
type Saver interface {
	Sink
	Saved(*run.Run) error
}

// Session is one run measured on this machine: by 'sectax run', by each
// step of a campaign and (through the guest's own) by a lab. Its Measure
// is the one sequence of them all.
type Session struct {
	Plan *plan.Plan
	Meta Meta
	// Sink records the run as it goes (nil: nowhere); a Saver is asked,
	// once the run is laid out, whether it was stored.
	Sink Sink
	// Past are this machine's stored runs of the suite and engine the
	// estimate learns from (store.DB.PastRuns; none: the plan's figure).
	Past []*run.Run
	// Ask confirms a run estimated at more than LongWork before it
	// starts (Printer.Confirm); a campaign's step, confirmed when the
	// campaign started, does not ask.
	Ask bool
	// NotesInResult says the Result's layout ends with the plan's notes
	// (the text table): they are then not said before.
	NotesInResult bool
}

// Measure is the session: the estimate (confirmed first when it is long
// and s.Ask), the plan's notes, the temporary folders of killed runs
// removed, the run measured with its progress on p's status line (each
// repetition's Event.Line while it runs, cleared at the end), laid out
// (also when interrupted), its storing checked, and its status turned
// into the exit error (Outcome). The run is returned whenever one was
// measured.
func (s Session) Measure(ctx context.Context, p Printer) (*run.Run, error) {
	pl := s.Plan
	est := pl.Estimate(pl.Request.Warmup, s.Past)
	if s.Ask && est.Duration > LongWork {
		if err := p.Confirm("this run is " + est.String()); err != nil {
			return nil, err
		}
	} else {
		p.Notef("%s", est)
	}
	if !s.NotesInResult {
		for _, n := range pl.Notes {
			p.Notef("%s", n)
		}
	}
	RemoveStaleTemps(p)
	r, err := measureRun(ctx, pl, s.Meta, s.Sink, func(e Event) {
		if !e.Finished {
			p.Status(e.Line())
		}
	})
	p.Status("")
	if r == nil || (err != nil && !errors.Is(err, context.Canceled)) {
		return r, err
	}
	err = p.Result(r)
	for _, w := range Weak(r) {
		p.Notef("warning: %s", w)
	}
	if sv, ok := s.Sink.(Saver); ok {
		if serr := sv.Saved(r); serr != nil {
			if r.Status == run.StatusInterrupted {
				return r, exit.Wrap(exit.Interrupted, serr)
			}
			return r, exit.Wrap(exit.Runtime, serr)
		}
	}
	if err != nil {
		return r, err
	}
	return r, Outcome(r)
}

// RemoveStaleTemps removes the temporary folders of earlier runs that
// were killed before they could (SIGKILL), and says so on p.
func RemoveStaleTemps(p ui.Printer) {
	for _, st := range workload.RemoveStaleTemps() {
		if st.Err != nil {
			p.Notef("could not remove %s, left by sectax pid %d which is no longer running: %v (remove it by hand)", st.Dir, st.PID, st.Err)
			continue
		}
		p.Notef("removed %s, left by sectax pid %d which is no longer running", st.Dir, st.PID)
	}
}

// StoredLine is the last line of a stored run's text: where it is and
// how compare, show and rm name it; an unlabelled run is named by its id,
// and the line says how the next one gets a label.
func StoredLine(id, label, where string) string {
	if label == "" {
		return fmt.Sprintf("Stored as run %s in %s, without a label: compare, show and rm name it by its id; give the next run --label NAME (e.g. --label on) to name it.", id, where)
	}
	return fmt.Sprintf("Stored as run %s in %s, labelled %s: 'sectax compare %s OTHER' takes the label.", id, where, label, label)
}

// HostMark is the mark of run id by the host whose root is root
// (hostid.Key.Mark); "" when the host's key cannot be had, which is said
// on p (decide then leaves the run out).
func HostMark(root, id string, p ui.Printer) string {
	k, err := hostid.Of(root)
	if err != nil {
		p.Notef("this host's key: %v; the run is stored without this host's mark, so decide leaves it out", err)
		return ""
	}
	return k.Mark(id)
}
