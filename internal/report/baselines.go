package report

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/run"
)

// BaselinesText is the text of 'sectax baselines': each published
// dataset, its source and its figures.
func BaselinesText(w io.Writer, all []*baseline.Dataset) error {
	for i, d := range all {
		b := newTextBuf(w)
		if i > 0 {
			b.WriteString("\n")
		}
		writeWrapped(b, fmt.Sprintf("%s%s — %s", baseline.Prefix, d.Name, d.Title), "", "  ")
		writeWrapped(b, d.Environment, "  environment: ", "               ")
		writeWrapped(b, d.Source, "  source:      ", "               ")
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		t := NewTable()
		var notes []string
		for _, r := range d.Results {
			head, cmd := fmt.Sprintf("  %s %s", r.Workload, run.ParamsKey(r.Params)), "("+r.Command+")"
			if utf8.RuneCountInString(head+"   "+cmd) <= widthOf(w) {
				t.Line(head + "   " + cmd)
			} else { // the command whole on its own line
				t.Line(head)
				t.Line("    " + cmd)
			}
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
			ew := &errWriter{w: w}
			writeWrapped(ew, n, "  note: ", "    ")
			if ew.err != nil {
				return ew.err
			}
		}
	}
	return nil
}
