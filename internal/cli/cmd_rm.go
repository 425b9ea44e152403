package cli

import (
	"fmt"

	"github.com/sectax/sectax/internal/report"

	"github.com/spf13/cobra"
)

func newRmCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "rm RUN",
		Short: "Delete one stored run and its samples",
		Long: `Delete one stored run and all its samples. RUN is a run id, a unique prefix
of one, or a label that holds a single run (a label of several runs is
refused: name the run). A run still being measured (marked running while
its sectax holds the store's measuring lock) is refused: wait for it, or
stop it; one whose measurer is gone may be removed. 'sectax export RUN -o
FILE' first keeps a copy.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			db, id, err := resolveOne(ctx, g, args[0])
			if err != nil {
				return err
			}
			defer db.Close()
			if err := db.CheckIdle(ctx, g.DB, id); err != nil {
				return err
			}
			if err := db.Delete(ctx, id); err != nil {
				return err
			}
			if !g.Quiet {
				fmt.Fprintf(g.stdout, "removed run %s\n", report.Clip(id, 80))
			}
			return nil
		},
	}
}
