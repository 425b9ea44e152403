package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/run"
)

// BaselinesText is the text of 'sectax baselines': each published
// dataset, its source and its figures.
func BaselinesText(w io.Writer, all []*baseline.Dataset) error {
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
		t := NewTable()
		var notes []string
		for _, r := range d.Results {
			t.Line(fmt.Sprintf("  %s %s   (%s)", r.Workload, run.ParamsKey(r.Params), r.Command))
			for _, m := range r.Metrics {
				v := WithUnit(m.Value, m.Unit)
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
