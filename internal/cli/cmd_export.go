package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
)

func newExportCmd(g *Globals) *cobra.Command {
	var po promOptions
	cmd := &cobra.Command{
		Use:  "export RUN... | export --format prometheus [--textfile-dir DIR]",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			po.explicit = cmd.Flags().Changed("on") || cmd.Flags().Changed("off")
			return runExport(cmd.Context(), g, po, args)
		},
	}
	addFormatFlag(cmd, report.ExportFormats)
	cmd.Flags().StringVar(&po.textfileDir, "textfile-dir", "", "prometheus: write `DIR`/sectax.prom atomically (node_exporter's --collector.textfile.directory)")
	cmd.Flags().StringVar(&po.on, "on", "on", "prometheus: the `RUN` or label of the mitigations-on side of the tax")
	cmd.Flags().StringVar(&po.off, "off", "off", "prometheus: the `RUN` or label of the mitigations-off side of the tax")
	return cmd
}

func runExport(ctx context.Context, g *Globals, po promOptions, args []string) error {
	if g.Format == "prometheus" {
		return runExportPrometheus(ctx, g, po, args)
	}
	if po.textfileDir != "" || po.explicit {
		return usagef("--textfile-dir, --on and --off go with --format prometheus")
	}
	if len(args) == 0 {
		return usagef("export needs the runs to write: run ids, prefixes or labels (sectax list shows them)")
	}
	for _, ref := range args {
		if ref == "" {
			return emptyRef()
		}
	}
	db, err := openStore(ctx, g, false)
	if err != nil {
		if store.IsNoDatabase(err) {
			return noDatabase(g, args[0])
		}
		return err
	}
	defer db.Close()
	// Two passes, one run in memory at a time: every run is checked
	// as import checks it before a byte is written, then written.
	ids, err := db.ExportIDs(ctx, args)
	if err != nil {
		return err
	}
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	return finish(report.WriteSafeJSON(w, func(w io.Writer) error {
		return db.WriteDocs(ctx, w, run.DocFormat(g.Format), ids)
	}))
}
