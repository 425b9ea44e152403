package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/stats"
)

// LabMatrix renders the study's matrix of `sectax lab`: the headline lines
// first (the TCG warning among them), then per block one row per workload
// (its primary metric): both medians, the change with its interval, the
// p-value and the verdict, and under the block what changed on the
// command line and in the vulnerability files; compare's warnings, each
// once, at the end.
func LabMatrix(w io.Writer, m *lab.Matrix) error {
	return plainText(w, func(w io.Writer) error { return labMatrix(w, m) })
}

func labMatrix(w io.Writer, m *lab.Matrix) error {
	for _, h := range m.Headline {
		if _, err := fmt.Fprintln(w, h); err != nil {
			return err
		}
	}
	group := ""
	var t *Table
	seen := map[string]bool{}
	var warnings []string
	flush := func() error {
		if t == nil {
			return nil
		}
		err := t.Write(w, false)
		t = nil
		return err
	}
	for _, c := range m.Comparisons {
		if c.Group != group {
			if err := flush(); err != nil {
				return err
			}
			group = c.Group
			if _, err := fmt.Fprintf(w, "\n%s\n", group); err != nil {
				return err
			}
			t = NewTable()
			t.Row("B vs A", "workload", "metric", "A", "B", "change", "95% interval", "p", "verdict")
		}
		rep := c.Report
		for _, wl := range rep.Workloads {
			if len(wl.Metrics) == 0 {
				continue
			}
			m := wl.Metrics[0]
			t.Row(c.B+" vs "+c.A, wl.Title(), m.Name, WithUnit(m.A.Center, m.Unit), WithUnit(m.B.Center, m.Unit),
				changePct(m), orDash(changeInterval(m)), P(m), m.Verdict)
		}
		var env []string
		if rep.Env.CmdlineKnown {
			var toks []string
			for _, a := range rep.Env.CmdlineAdded {
				toks = append(toks, "+"+a)
			}
			for _, r := range rep.Env.CmdlineRemoved {
				toks = append(toks, "-"+r)
			}
			if len(toks) == 0 {
				toks = []string{"same"}
			}
			env = append(env, "command line "+strings.Join(toks, " "))
		}
		env = append(env, fmt.Sprintf("%d vulnerability files changed", len(rep.Env.Vulnerabilities)))
		if n := len(rep.Env.Confounders); n > 0 {
			var names []string
			for _, cf := range rep.Env.Confounders {
				names = append(names, cf.Name)
			}
			env = append(env, "also differs: "+strings.Join(names, ", "))
		}
		t.Line(fmt.Sprintf("  %s vs %s: %s; %s", c.B, c.A, strings.Join(env, "; "), sideUnits(rep)))
		for _, wn := range rep.Warnings {
			if !seen[wn.Message] {
				seen[wn.Message] = true
				warnings = append(warnings, wn.Message)
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if len(warnings) > 0 {
		if _, err := fmt.Fprintln(w, "\nwarnings:"); err != nil {
			return err
		}
		for _, m := range warnings {
			if _, err := fmt.Fprintf(w, "  %s\n", m); err != nil {
				return err
			}
		}
	}
	return nil
}

func changePct(m compare.Metric) string {
	if m.Verdict == compare.VerdictSame {
		return "~ (" + stats.FormatPct(m.ChangePct) + ")"
	}
	return stats.FormatPct(m.ChangePct)
}

func sideUnits(rep *compare.Report) string {
	return fmt.Sprintf("%d+%d boots, a sample is a %s", rep.A.Boots, rep.B.Boots, rep.A.Unit)
}
