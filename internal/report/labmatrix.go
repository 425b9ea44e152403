package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/lab"
)

// LabMatrix renders the study's matrix of `sectax lab`: the headline lines
// first (the TCG warning among them), then per block (one comparison, one
// Holm family) its conclusion, its sides and the one table of every
// comparison (textTable, as `sectax compare on off ...` draws it), and
// under the table per side what changed on the command line and in the
// vulnerability files; compare's warnings, each once, at the end.
func LabMatrix(w io.Writer, m *lab.Matrix) error {
	return plainText(w, func(w io.Writer) error { return labMatrix(w, m) })
}

func labMatrix(w io.Writer, m *lab.Matrix) error {
	b := newTextBuf(w)
	for _, h := range m.Headline {
		writeWrapped(b, h, "", "  ")
	}
	seen := map[string]bool{}
	var warnings []string
	for _, g := range m.Groups {
		c := g.Comparison
		fmt.Fprintf(b, "\n%s\n", termSafe(g.Title))
		writeWrapped(b, capital(conclusionOf(c))+".", "", "  ")
		textSides(b, c, "")
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		b.Reset()
		if err := textTable(w, c, false); err != nil {
			return err
		}
		for i, rep := range c.Comparisons {
			s := envSummary(rep)
			writeForeign(b, termSafe(s), s, "  "+compare.SideLetter(i+1)+" vs A: ", "    ")
			for _, wn := range rep.Warnings {
				if !seen[wn.Message] {
					seen[wn.Message] = true
					warnings = append(warnings, wn.Message)
				}
			}
		}
	}
	if len(warnings) > 0 {
		b.WriteString("\nwarnings:\n")
		for _, m := range warnings {
			writeForeign(b, termSafe(m), m, "  - ", "    ")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// envSummary is one line of what differs between a side and the baseline:
// the command-line tokens, how many vulnerability files changed, what else
// differs, and what a sample is.
func envSummary(rep *compare.Report) string {
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
	return fmt.Sprintf("%s; %s", strings.Join(env, "; "), sideUnits(rep))
}

func sideUnits(rep *compare.Report) string {
	return fmt.Sprintf("%d+%d boots, a sample is a %s", rep.A.Boots, rep.B.Boots, rep.A.Unit)
}
