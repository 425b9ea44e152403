package cli

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/spf13/cobra"
)

// helpProblems lists what is wrong between the commands of root's tree
// and the help files in fsys (help.go): a command of sectax's with no
// file, a file naming no command, an empty file or summary, an include
// of a missing passage, a passage nothing includes.
func helpProblems(root *cobra.Command, fsys fs.FS) []string {
	var problems []string
	commands := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !sectaxCommand(c) {
			return
		}
		commands[helpFile(c)] = true
		if _, err := fs.Stat(fsys, "help/"+helpFile(c)); err != nil {
			problems = append(problems, c.CommandPath()+": no help file help/"+helpFile(c))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	names, _ := fs.Glob(fsys, "help/*.txt")
	included := map[string]bool{}
	for _, path := range names {
		name := strings.TrimPrefix(path, "help/")
		b, _ := fs.ReadFile(fsys, path)
		if strings.TrimSpace(string(b)) == "" {
			problems = append(problems, path+" is empty")
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if part, ok := strings.CutPrefix(l, "--- include "); ok {
				included["_"+part+".txt"] = true
			}
		}
		if strings.HasPrefix(name, "_") {
			continue
		}
		if !commands[name] {
			problems = append(problems, path+" names no command")
			continue
		}
		text, err := readHelp(fsys, name)
		if err != nil {
			problems = append(problems, path+": "+err.Error())
		} else if short, _, _ := splitHelp(text); strings.TrimSpace(short) == "" {
			problems = append(problems, path+": no summary on its first line")
		}
	}
	for _, path := range names {
		if name := strings.TrimPrefix(path, "help/"); strings.HasPrefix(name, "_") && !included[name] {
			problems = append(problems, path+" is included by no help file")
		}
	}
	slices.Sort(problems)
	return problems
}

// TestHelpFiles: every command sectax makes has its help file, and every
// help file is a command's (or a passage one includes), none empty.
func TestHelpFiles(t *testing.T) {
	root := newRootCmd(&Globals{deps: fixedDeps(nil)})
	if p := helpProblems(root, helpFiles); len(p) > 0 {
		t.Errorf("help files:\n%s", strings.Join(p, "\n"))
	}
	for _, c := range []*cobra.Command{root, root.Commands()[0]} {
		if c.Short == "" || c.Long == "" {
			t.Errorf("%s: help not filled from its file: %q, %q", c.CommandPath(), c.Short, c.Long)
		}
	}
}

// TestHelpProblems: helpProblems finds each fault in a made-up tree.
func TestHelpProblems(t *testing.T) {
	root := &cobra.Command{Use: "sectax"}
	campaign := &cobra.Command{Use: "campaign"}
	campaign.AddCommand(&cobra.Command{Use: "start"}, &cobra.Command{Use: "status"})
	root.AddCommand(campaign, &cobra.Command{Use: "run"})
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := fstest.MapFS{
		"help/sectax.txt":          file("Measure\n\nLong text.\n--- examples\n  sectax run\n"),
		"help/campaign.txt":        file("Campaigns\n\n--- include shared\n"),
		"help/campaign-start.txt":  file("Start\n--- include gone\n"),
		"help/campaign-status.txt": file("\n\nno summary\n"),
		"help/run.txt":             file(" \n"),
		"help/lab.txt":             file("Lab\n"),
		"help/_shared.txt":         file("A passage.\n"),
		"help/_unused.txt":         file("Nobody's.\n"),
	}
	want := []string{
		"help/_unused.txt is included by no help file",
		"help/campaign-start.txt: open help/_gone.txt: file does not exist",
		"help/campaign-status.txt: no summary on its first line",
		"help/lab.txt names no command",
		"help/run.txt is empty",
	}
	if got := helpProblems(root, fsys); !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	delete(fsys, "help/run.txt")
	if got := helpProblems(root, fsys); !slices.Contains(got, "sectax run: no help file help/run.txt") {
		t.Errorf("a command without its file is not found: %q", got)
	}
	setHelp(root, fsys)
	if root.Short != "Measure" || root.Long != "Long text." || root.Example != "  sectax run" {
		t.Errorf("sectax.txt read as %q, %q, %q", root.Short, root.Long, root.Example)
	}
	if campaign.Long != "A passage." {
		t.Errorf("include read as %q", campaign.Long)
	}
}
