package cli

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/store"
)

func newListCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stored runs",
		Long: `List the runs stored in the database (--db), oldest first: id, label, start
time, host, kernel, mitigation mode, suite and status. A run that is still
"running" after its sectax process ended was cut short by a crash; its
finished samples are kept.`,
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
				g.notice("no runs stored yet (no database at %s)", g.DB)
			case err != nil:
				return err
			default:
				defer db.Close()
				if runs, err = db.List(ctx); err != nil {
					return err
				}
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			if g.Format == "json" {
				return finish(writeListJSON(w, runs))
			}
			return finish(writeListText(w, runs, g.colorAllowed()))
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
}

func listRows(runs []store.Summary) []listRow {
	rows := []listRow{}
	for _, s := range runs {
		host, _ := compare.Lookup(s.Env, "hostname")
		kernel, _ := compare.Lookup(s.Env, "kernel.release")
		mode, _ := compare.Lookup(s.Env, "mitigation_mode")
		rows = append(rows, listRow{ID: s.ID, Label: s.Label, Started: s.Started, Finished: s.Finished,
			Host: host, Kernel: kernel, MitigationMode: mode, Suite: s.Suite, Engine: s.Engine, Status: string(s.Status)})
	}
	return rows
}

func writeListJSON(w io.Writer, runs []store.Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(listRows(runs))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeListText(w io.Writer, runs []store.Summary, color bool) error {
	if len(runs) == 0 {
		return nil
	}
	t := report.NewTable()
	t.Row("ID", "LABEL", "STARTED", "HOST", "KERNEL", "MITIGATIONS", "SUITE", "STATUS")
	for _, r := range listRows(runs) {
		started := "-"
		if !r.Started.IsZero() {
			started = r.Started.UTC().Format("2006-01-02 15:04Z")
		}
		t.Row(r.ID, dash(r.Label), started, dash(r.Host), dash(r.Kernel), dash(r.MitigationMode), dash(r.Suite), r.Status)
	}
	return t.Write(w, color)
}
