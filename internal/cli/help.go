package cli

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
)

// helpFiles are the commands' help texts, one file per command
// (docs/development.md): help/<command path>.txt holds its one-line
// summary (Short), a blank line and its description (Long), then a line
// "--- examples" and its examples (Example); Long and the examples may be
// absent. A line "--- include NAME" stands for the passage in
// help/_NAME.txt, which several commands share.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpFile is the name of c's help file: its path below the root with
// its words joined by '-' ("campaign-start.txt"), sectax.txt for the root.
func helpFile(c *cobra.Command) string {
	if !c.HasParent() {
		return c.Name() + ".txt"
	}
	path := strings.Fields(c.CommandPath())[1:]
	return strings.Join(path, "-") + ".txt"
}

// sectaxCommand reports whether sectax made c, not cobra ('help',
// 'completion' and its shells, which cobra describes itself).
func sectaxCommand(c *cobra.Command) bool {
	for ; c.HasParent(); c = c.Parent() {
		if !c.Parent().HasParent() && (c.Name() == "help" || c.Name() == "completion") {
			return false
		}
	}
	return true
}

// setHelp fills Short, Long and Example of every command in root's tree
// that sectax made from its help file in fsys; a command without one keeps
// what it has (TestHelpFiles fails on it).
func setHelp(root *cobra.Command, fsys fs.FS) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !sectaxCommand(c) {
			return
		}
		if text, err := readHelp(fsys, helpFile(c)); err == nil {
			c.Short, c.Long, c.Example = splitHelp(text)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// readHelp is the help file name in fsys with its includes put in.
func readHelp(fsys fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(fsys, "help/"+name)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		if part, ok := strings.CutPrefix(l, "--- include "); ok {
			p, err := fs.ReadFile(fsys, "help/_"+part+".txt")
			if err != nil {
				return "", err
			}
			lines[i] = strings.TrimSuffix(string(p), "\n")
		}
	}
	return strings.Join(lines, "\n"), nil
}

// splitHelp splits a help file's text (readHelp) into its summary,
// description and examples.
func splitHelp(text string) (short, long, example string) {
	body, example, _ := strings.Cut(text, "\n--- examples\n")
	short, long, _ = strings.Cut(body, "\n")
	return short, strings.TrimPrefix(long, "\n"), example
}
