package store

import (
	"fmt"
	"regexp"

	"github.com/sectax/sectax/internal/ui"
)

// notesDo is a ui.Printer that hands each note to a test as it is said
// (a test releases a lock, or cancels, once the store has said it waits).
type notesDo func(msg string)

func (f notesDo) Notef(format string, a ...any) { f(fmt.Sprintf(format, a...)) }
func (notesDo) Status(string)                   {}
func (notesDo) Confirm(string) error            { return nil }

var _ ui.Printer = notesDo(nil)

// busyNote is the note a write says before it waits for a busy store.
var busyNote = regexp.MustCompile(`^database \S+ is locked by another process; trying again in \S+ \(attempt \d+ of \d+\)$`)
