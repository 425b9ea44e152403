package cli

import "io"

// dryRunUsage is the help of every --dry-run (campaign start, lab,
// wslconfig set/unset); each opens its output with report.DryRunLine.
const dryRunUsage = "show what would be done, in order, and change nothing"

// printPlan lays out the plan of a dry run (or returns the error that
// made it) on stdout or -o FILE.
func printPlan[P any](g *Globals, p P, err error, render func(io.Writer, P) error) error {
	if err != nil {
		return err
	}
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	return finish(render(w, p))
}
