package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// completions adds dynamic shell completion ('sectax completion SHELL'
// installs it) to the tree: stored run ids and labels for the commands
// that take runs (store.Ref.Completions: read-only, never a new database),
// workload ids for --only and --skip (the registry). --format's values are
// added by addFormatFlag from report's registries.
func completions(root *cobra.Command, g *Globals) {
	refs := func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if (cmd.Name() == "show" || cmd.Name() == "rm") && len(args) > 0 { // one run each
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ref, err := g.ref()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return ref.Completions(ctx, prefix), cobra.ShellCompDirectiveNoFileComp
	}
	workloads := func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		done, last := "", prefix // a comma list: complete its last element
		if i := strings.LastIndexByte(prefix, ','); i >= 0 {
			done, last = prefix[:i+1], prefix[i+1:]
		}
		var out []string
		for _, w := range g.deps.Registry.All() {
			if in := w.Info(); strings.HasPrefix(in.ID, last) {
				out = append(out, done+in.ID+"\t"+in.Title)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	completionHelp(root)
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		switch c.CommandPath() {
		case "sectax show", "sectax rm", "sectax compare", "sectax export":
			c.ValidArgsFunction = refs
		}
		for _, name := range []string{"only", "skip"} {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, workloads)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completionHelp adds to cobra's 'completion' commands what a sectax user
// needs: the packages install the scripts where the shells look, and
// bash's script works only with the bash-completion package.
func completionHelp(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Long = strings.TrimRight(c.Long, "\n") + `

sectax's .deb and .rpm install the bash, zsh and fish scripts where those
shells look. bash's needs the bash-completion package (Debian and Ubuntu:
apt-get install bash-completion; Fedora: dnf install bash-completion).`
		for _, sub := range c.Commands() {
			if sub.Name() == "bash" {
				sub.Long = strings.Replace(sub.Long, "If it is not installed already, you can install it via your OS's package manager.",
					"Install it if it is missing (Debian and Ubuntu: apt-get install bash-completion;\nFedora: dnf install bash-completion).", 1)
			}
		}
	}
}
