package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

func newListCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:  "list",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runList(cmd.Context(), g) },
	}
	addFormatFlag(cmd, report.ListFormats.List())
	return cmd
}

func runList(ctx context.Context, g *Globals) error {
	var runs []store.Summary
	db, err := openStore(ctx, g, false)
	switch {
	case errors.Is(err, store.ErrNoDatabase):
		nothingStored(g, "run `sectax run --label on` first")
	case err != nil:
		return err
	default:
		defer db.Close()
		if runs, err = db.ListBrief(ctx); err != nil {
			return err
		}
		if len(runs) == 0 {
			g.notice("no runs stored in %s; run `sectax run --label on` first", g.dbShown())
		}
	}
	return render(g, report.ListFormats, listRows(runs, g.dbRef), report.Options{Color: g.colorAllowed()})
}

func listRows(runs []store.Summary, db store.Ref) []report.ListRow {
	rows := []report.ListRow{}
	measuring := -2 // not looked up yet
	for _, s := range runs {
		status := string(s.Status)
		if s.Status == run.StatusRunning {
			if measuring == -2 {
				measuring = db.MeasuringPID()
			}
			if measuring == 0 {
				status = report.Abandoned
			}
		}
		host, _ := compare.Lookup(s.Env, "hostname")
		if s.LabHost != "" { // a guest's hostname is "(none)"
			host = s.LabHost
		}
		kernel, _ := compare.Lookup(s.Env, "kernel.release")
		mode, _ := compare.Lookup(s.Env, "mitigation_mode")
		rows = append(rows, report.ListRow{ID: s.ID, Label: s.Label, Started: s.Started, Finished: s.Finished,
			Host: host, Kernel: kernel, MitigationMode: mode, Suite: s.Suite, Engine: s.Engine, Status: status, Accel: s.Accel})
	}
	return rows
}
