package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
)

func newBaselinesCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baselines",
		Short: "List the built-in published datasets (compare with baseline:NAME)",
		Long: `List the published datasets built into sectax, each with its source, its
environment and its figures. Compare with them as baseline:NAME:

  sectax compare baseline:study-wsl3-on baseline:study-wsl3-off
  sectax compare on baseline:study-wsl3-on

Their values are single published figures: no samples, so no confidence
interval and no significance test. Figures marked ≈ are approximate or
derived (the note says how).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(g, "text", "json"); err != nil {
				return err
			}
			all, err := baseline.All()
			if err != nil {
				return err
			}
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			if g.Format == "json" {
				return finish(writeJSON(w, all))
			}
			return finish(writeBaselinesText(w, all))
		},
	}
	addFormatFlag(cmd, g, "text", "text", "json")
	return cmd
}

func writeBaselinesText(w io.Writer, all []*baseline.Dataset) error {
	for i, d := range all {
		var b strings.Builder
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s%s — %s\n", baseline.Prefix, d.Name, d.Title)
		fmt.Fprintf(&b, "  environment: %s\n", d.Environment)
		fmt.Fprintf(&b, "  source:      %s\n", d.Source)
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		t := report.NewTable()
		var notes []string
		for _, r := range d.Results {
			t.Line(fmt.Sprintf("  %s %s   (%s)", r.Workload, run.ParamsKey(r.Params), r.Command))
			for _, m := range r.Metrics {
				v := report.WithUnit(m.Value, m.Unit)
				if m.Approx {
					v = "≈" + v
				}
				t.Row("    "+m.Name, v, string(m.Better)+" is better")
				if m.Note != "" {
					notes = append(notes, fmt.Sprintf("%s %s: %s", r.Workload, m.Name, m.Note))
				}
			}
		}
		if err := t.Write(w, false); err != nil {
			return err
		}
		for _, n := range notes {
			if _, err := fmt.Fprintf(w, "  note: %s\n", n); err != nil {
				return err
			}
		}
	}
	return nil
}
