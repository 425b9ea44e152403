package store

import (
	"context"
	"fmt"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/ui"
)

// Recorder records a run in DB as it goes (a measure.Sink), busy writes
// retried. A write that fails (the database locked past the backoff, a
// full disk) does not stop the measurement: it is said once, the
// recorder stops writing, and Err says why; Saved then writes the
// finished run to a file that 'sectax import' recovers.
type Recorder struct {
	DB *DB
	// Patience ends the waiting for a busy store (Ctrl-C): sectax then
	// exits within one more attempt instead of the whole backoff.
	Patience context.Context
	err      error
	// out is told, in a note, of the first write that failed and of
	// where the run is once it is measured.
	out ui.Printer
	// push is the PostgreSQL store a run in the spool goes to once it
	// ends (OpenRecorder), nil for a run recorded where it stays.
	push *pushTarget
}

// NewRecorder records in db, waiting for a busy store until ctx ends;
// out is told once when a write fails, and where the run is once it is
// measured (Saved).
func NewRecorder(ctx context.Context, db *DB, out ui.Printer) *Recorder {
	return &Recorder{DB: db, Patience: ctx, out: ui.Or(out)}
}

// Saved is what became of the measured run r: nil when the store holds
// it (said); otherwise r is written to a
// file beside the store (spill) and the error names the file, which
// 'sectax import' recovers.
func (s *Recorder) Saved(r *run.Run) error {
	if s.err == nil && s.push != nil {
		return s.pushed(r)
	}
	if s.err == nil {
		s.out.Notef("stored run %s in %s", r.ID, s.DB.Path())
		return nil
	}
	file, err := spill(s.DB.Path(), r)
	if err != nil {
		return fmt.Errorf("run %s was not stored in %s (%v), and could not be written to a file either (%v): the results above are all that is left", r.ID, s.DB.Path(), s.err, err)
	}
	return fmt.Errorf("run %s was not stored in %s: %v; it is saved in %s: recover it with 'sectax import %s' once the store can be written", r.ID, s.DB.Path(), s.err, file, file)
}

// Err is the write that failed, nil when every write succeeded.
func (s *Recorder) Err() error { return s.err }

func (s *Recorder) ctx() context.Context {
	if s.Patience == nil {
		return context.Background()
	}
	return s.Patience
}

func (s *Recorder) fail(r *run.Run, err error) {
	s.err = err
	s.out.Notef("cannot store run %s: %v; measuring on, the run will be written to a file at the end", r.ID, err)
}

// Begin records the new run.
func (s *Recorder) Begin(r *run.Run) error {
	if err := s.DB.BeginPatient(s.ctx(), r); err != nil {
		s.fail(r, err)
	}
	return nil
}

// Sample records one repetition of r.Results[result].
func (s *Recorder) Sample(r *run.Run, result int, values map[string]float64) error {
	if s.err == nil {
		if err := s.DB.SamplePatient(s.ctx(), r, result, values); err != nil {
			s.fail(r, err)
		}
	}
	return nil
}

// Finish records the run's final state.
func (s *Recorder) Finish(r *run.Run) error {
	if s.err == nil {
		if err := s.DB.FinishPatient(s.ctx(), r); err != nil {
			s.fail(r, err)
		}
	}
	return nil
}

// CheckNewLabel refuses, as a usage error, a label for a new run that is
// the id of a stored run: compare and rm would take the wrong one.
func (d *DB) CheckNewLabel(ctx context.Context, label string) error {
	if label == "" {
		return nil
	}
	if ids, how, err := d.Resolve(ctx, label); err == nil && how == ByID {
		return exit.Usagef("--label %s is the id of stored run %s; a label must not name a run, or compare and rm would take the wrong one: choose another label", label, ids[0])
	}
	return nil
}

// Push moves the runs ids from the spool sp to the store d in one
// transaction, then removes them from the spool. A run d already holds
// (the same id) is not written twice; it leaves the spool too. It returns
// how many runs left the spool and the ids d already held.
func (d *DB) Push(ctx context.Context, sp *DB, ids []string) (n int, skipped []string, err error) {
	var docs []run.Doc
	for _, id := range ids {
		doc, err := sp.Doc(ctx, id)
		if err != nil {
			return 0, nil, err
		}
		docs = append(docs, doc)
	}
	if err := CheckDocs(docs); err != nil {
		return 0, nil, err
	}
	res, err := d.Import(ctx, docs)
	if err != nil {
		return 0, nil, err
	}
	for _, id := range append(res.Imported, res.Skipped...) {
		if err := sp.Delete(ctx, id); err != nil {
			return 0, res.Skipped, fmt.Errorf("spool: %w", err)
		}
	}
	return len(res.Imported) + len(res.Skipped), res.Skipped, nil
}
