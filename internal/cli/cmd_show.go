package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

func newShowCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:  "show RUN",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runShow(cmd.Context(), g, args[0]) },
	}
	addFormatFlag(cmd, report.ShowFormats)
	return cmd
}

func runShow(ctx context.Context, g *Globals, ref string) error {
	db, id, err := resolveOne(ctx, g, ref)
	if err != nil {
		return err
	}
	defer db.Close()
	doc, err := db.Doc(ctx, id)
	if err != nil {
		return err
	}
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	if g.Format == "json" {
		if err := store.CheckExport(doc); err != nil {
			return finish(err)
		}
		return finish(report.WriteSafeJSON(w, func(w io.Writer) error { return run.WriteDocs(w, []run.Doc{doc}, run.FormatSingle) }))
	}
	env, err := db.Env(ctx, id)
	if err != nil {
		return finish(err)
	}
	return finish(report.ShowText(w, doc.Run, env, g.dbRef.MeasuringPID()))
}
