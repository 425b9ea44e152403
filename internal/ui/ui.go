// Package ui is the one way sectax's packages speak to the person running
// it (restic's internal/ui): a Printer handed down from the command line
// to the store, the proofs, the QEMU toolkit, a campaign, a lab and a
// measuring session. Only internal/cli implements a Printer that writes
// to a terminal; every other package says what it has to say through the
// one it was given, and no package below cli takes a callback to speak.
package ui

import (
	"fmt"
	"sync"
)

// Printer is where a package's words to the user go.
type Printer interface {
	// Notef says one line to the user (stderr; nothing under -q).
	Notef(format string, a ...any)
	// Status shows line as the status line: redrawn in place while
	// stderr is a terminal, replaced by the next one, cleared by "" and
	// by the next note; shown nowhere otherwise.
	Status(line string)
	// Confirm asks before long work (what names it and its estimate):
	// nil to go on, an error (a refusal, or no terminal to ask on and no
	// --yes) to start nothing.
	Confirm(what string) error
}

// Discard is a Printer that says nothing, shows nothing and goes on
// without asking.
type Discard struct{}

func (Discard) Notef(string, ...any) {}
func (Discard) Status(string)        {}
func (Discard) Confirm(string) error { return nil }

// Or is p, or Discard when p is nil: what a package does with a Printer
// its caller may have left out.
func Or(p Printer) Printer {
	if p == nil {
		return Discard{}
	}
	return p
}

// Recorder is a Printer that keeps what it was told, for tests; safe for
// concurrent use. Answer is what Confirm returns.
type Recorder struct {
	Answer error

	mu       sync.Mutex
	notes    []string
	statuses []string
	asked    []string
}

func (r *Recorder) Notef(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, fmt.Sprintf(format, a...))
}

func (r *Recorder) Status(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.statuses = append(r.statuses, line)
}

func (r *Recorder) Confirm(what string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, what)
	return r.Answer
}

// Notes are the lines said so far, in order.
func (r *Recorder) Notes() []string { return r.copyOf(&r.notes) }

// Statuses are the status lines shown so far, in order.
func (r *Recorder) Statuses() []string { return r.copyOf(&r.statuses) }

// Asked are the questions asked so far, in order.
func (r *Recorder) Asked() []string { return r.copyOf(&r.asked) }

func (r *Recorder) copyOf(s *[]string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), *s...)
}
