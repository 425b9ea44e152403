package cli

import (
	"io"

	"github.com/sectax/sectax/internal/report"
)

// dryRunUsage is the help of every --dry-run (campaign start, lab,
// wslconfig set/unset); each opens its output with report.DryRunLine.
const dryRunUsage = "show what would be done, in order, and change nothing"

// printPlan lays out p, the plan of a dry run or the result of a lab (or
// returns the error that made it), on stdout or -o FILE: by render, or
// under --format json as one JSON document.
func printPlan[P any](g *Globals, p P, err error, render func(io.Writer, P) error) error {
	if err != nil {
		return err
	}
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	if g.Format == "json" {
		return finish(report.WriteJSON(w, p))
	}
	return finish(render(w, p))
}
