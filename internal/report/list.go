package report

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
)

// Abandoned is the list status of a run still marked running while no
// sectax run holds the lock: it was cut short (killed, crashed).
const Abandoned = "running, cut short"

// ListRow is one stored run as 'sectax list' shows it.
type ListRow struct {
	ID             string    `json:"id"`
	Label          string    `json:"label"`
	Started        time.Time `json:"started"`
	Finished       time.Time `json:"finished"`
	Host           string    `json:"host"`
	Kernel         string    `json:"kernel"`
	MitigationMode string    `json:"mitigation_mode"`
	Suite          string    `json:"suite"`
	Engine         string    `json:"engine"`
	Status         string    `json:"status"`
	// Accel is the accelerator of a run measured by sectax lab in a QEMU
	// guest (kvm, tcg); absent for a run measured on a machine.
	Accel string `json:"accel,omitempty"`
}

// Dash is s, or "-" when it is empty.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ListJSON is the JSON of 'sectax list'.
func ListJSON(w io.Writer, rows []ListRow) error { return WriteJSON(w, rows) }

// ListText is the table of 'sectax list' (nothing when there is no run).
func ListText(w io.Writer, rows []ListRow, color bool) error {
	if len(rows) == 0 {
		return nil
	}
	if slices.ContainsFunc(rows, func(r ListRow) bool { return r.Accel == "tcg" }) {
		// A TCG run's timings are the emulator's: say so before any of them.
		if _, err := fmt.Fprintf(w, "%s (runs marked \"lab tcg\")\n\n", compare.TCGHeadline); err != nil {
			return err
		}
	}
	t := NewTable()
	t.Row("ID", "LABEL", "STARTED", "HOST", "KERNEL", "MITIGATIONS", "SUITE", "STATUS")
	for _, r := range rows {
		suite := Dash(Clip(r.Suite, 32))
		if r.Accel != "" {
			suite += ", lab " + Clip(r.Accel, 8)
		}
		started := "-"
		if !r.Started.IsZero() {
			started = r.Started.UTC().Format("2006-01-02 15:04Z")
		}
		t.Row(Clip(r.ID, run.MaxIDBytes), Dash(Clip(r.Label, run.MaxLabelBytes)), started, Dash(Clip(r.Host, 64)),
			Dash(Clip(r.Kernel, 64)), Dash(Clip(r.MitigationMode, 16)), suite, Clip(r.Status, 32))
	}
	return t.Write(w, color)
}

// Clip makes a stored field one safe line (termSafe: a control character
// becomes \xNN) and cuts it to at most max characters, the last of them an
// ellipsis, so that no stored field (an import is checked, an old database
// or another writer of a shared store may not have been) reaches the
// terminal raw or makes list or show print more than a screenful.
func Clip(s string, max int) string { return Fit(termSafe(s), max) }
