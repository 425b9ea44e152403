package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
)

// formatValue is a command's --format: its own value (its default the
// first of its table), checked against that table before the command runs.
type formatValue struct {
	name string
	list report.FormatList
}

func (f *formatValue) String() string     { return f.name }
func (f *formatValue) Set(s string) error { f.name = s; return nil }
func (f *formatValue) Type() string       { return "string" }

// addFormatFlag adds --format with its help and completion made from the
// command's table of formats (report's registry).
func addFormatFlag(cmd *cobra.Command, list report.FormatList) {
	cmd.Flags().Var(&formatValue{list[0].Name, list}, "format", list.Usage())
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(list.Names(), cobra.ShellCompDirectiveNoFileComp))
}

// useFormat sets g.Format to the running command's --format and checks it
// against the command's table: the one check, before any work, so a bad
// --format fails before measuring or booting.
func (g *Globals) useFormat(cmd *cobra.Command) error {
	fl := cmd.Flags().Lookup("format")
	if fl == nil {
		return nil
	}
	f, ok := fl.Value.(*formatValue)
	if !ok {
		return nil
	}
	g.Format = f.name
	return f.list.Check(f.name)
}

// render lays v out in --format on standard output or -o FILE.
func render[T any](g *Globals, fs *report.Formats[T], v T, opt report.Options) error {
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	return finish(fs.Render(w, g.Format, v, opt))
}

// renderer is the layout of v in --format, for a run's result (measureHere).
func renderer[T any](g *Globals, fs *report.Formats[T]) func(io.Writer, T) error {
	return func(w io.Writer, v T) error { return fs.Render(w, g.Format, v, report.Options{}) }
}
