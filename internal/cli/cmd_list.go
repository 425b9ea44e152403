package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

func newListCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stored runs",
		Long: `List the runs stored in the database (--db), oldest first: id, label, start
time, host, kernel, mitigation mode, suite and status. A run still marked
running while no 'sectax run' holds the lock beside the database shows as
"running, cut short": it was killed or crashed, and the samples it finished
are kept (and used by compare).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(g, "text", "json"); err != nil {
				return err
			}
			ctx := cmd.Context()
			var runs []store.Summary
			db, err := openStore(ctx, g, false)
			switch {
			case errors.Is(err, store.ErrNoDatabase):
				g.notice("no runs stored yet (no database at %s); run `sectax run --label on` first", store.DisplayName(g.DB))
			case err != nil:
				return err
			default:
				defer db.Close()
				if runs, err = db.ListBrief(ctx); err != nil {
					return err
				}
				if len(runs) == 0 {
					g.notice("no runs stored in %s; run `sectax run --label on` first", g.DB)
				}
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			if g.Format == "json" {
				return finish(writeJSON(w, listRows(runs, store.DisplayName(g.DB))))
			}
			return finish(writeListText(w, runs, store.DisplayName(g.DB), g.colorAllowed()))
		},
	}
	addFormatFlag(cmd, g, "text", "text", "json")
	return cmd
}

type listRow struct {
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

// abandoned is the list status of a run still marked running while no
// sectax run holds the lock: it was cut short (killed, crashed).
const abandoned = "running, cut short"

func listRows(runs []store.Summary, dbPath string) []listRow {
	rows := []listRow{}
	measuring := -2 // not looked up yet
	for _, s := range runs {
		status := string(s.Status)
		if s.Status == run.StatusRunning {
			if measuring == -2 {
				measuring = store.MeasuringPID(dbPath)
			}
			if measuring == 0 {
				status = abandoned
			}
		}
		host, _ := compare.Lookup(s.Env, "hostname")
		kernel, _ := compare.Lookup(s.Env, "kernel.release")
		mode, _ := compare.Lookup(s.Env, "mitigation_mode")
		rows = append(rows, listRow{ID: s.ID, Label: s.Label, Started: s.Started, Finished: s.Finished,
			Host: host, Kernel: kernel, MitigationMode: mode, Suite: s.Suite, Engine: s.Engine, Status: status, Accel: s.Accel})
	}
	return rows
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeListText(w io.Writer, runs []store.Summary, dbPath string, color bool) error {
	if len(runs) == 0 {
		return nil
	}
	rows := listRows(runs, dbPath)
	if slices.ContainsFunc(rows, func(r listRow) bool { return r.Accel == "tcg" }) {
		// A TCG run's timings are the emulator's: say so before any of them.
		if _, err := fmt.Fprintf(w, "%s (runs marked \"lab tcg\")\n\n", compare.TCGHeadline); err != nil {
			return err
		}
	}
	t := report.NewTable()
	t.Row("ID", "LABEL", "STARTED", "HOST", "KERNEL", "MITIGATIONS", "SUITE", "STATUS")
	for _, r := range rows {
		suite := dash(clip(r.Suite, 32))
		if r.Accel != "" {
			suite += ", lab " + clip(r.Accel, 8)
		}
		started := "-"
		if !r.Started.IsZero() {
			started = r.Started.UTC().Format("2006-01-02 15:04Z")
		}
		t.Row(clip(r.ID, run.MaxIDBytes), dash(clip(r.Label, run.MaxLabelBytes)), started, dash(clip(r.Host, 64)),
			dash(clip(r.Kernel, 64)), dash(clip(r.MitigationMode, 16)), suite, clip(r.Status, 32))
	}
	return t.Write(w, color)
}

// clip cuts s to at most max characters, the last of them an ellipsis, so
// that no stored field (an import is checked, an old database may not
// have been) makes list or show print more than a screenful.
func clip(s string, max int) string {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
