package lab

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// logLines is a guest's log as the host receives it.
type logLines []string

func (l *logLines) Logf(format string, a ...any) { *l = append(*l, fmt.Sprintf(format, a...)) }

// TestGuestPrinterLogsProgressEvery5s: the lab guest's printer logs the
// status line of a repetition at most every 5 s (the host says every log
// line, and a guest has no terminal to redraw one on), never the clearing
// "", and every note; it starts work without asking.
func TestGuestPrinterLogsProgressEvery5s(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	var log logLines
	p := newGuestPrinter(&log, func() time.Time { return now })
	for _, step := range []struct {
		at   time.Duration
		line string
	}{{time.Second, "[1/4] a measure 1"}, {6 * time.Second, "[2/4] a measure 2"}, {8 * time.Second, "[3/4] a measure 3"},
		{11500 * time.Millisecond, "[4/4] a measure 4"}, {20 * time.Second, ""}} {
		now = t0.Add(step.at)
		p.Status(step.line)
	}
	p.Notef("warning: %s", "the load was high")
	if want := []string{"[2/4] a measure 2", "[4/4] a measure 4", "warning: the load was high"}; !slices.Equal(log, want) {
		t.Errorf("logged %q, want %q", log, want)
	}
	if err := p.Confirm("a long run"); err != nil {
		t.Errorf("Confirm = %v, want nil (the host confirmed the lab)", err)
	}
}
