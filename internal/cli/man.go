package cli

import (
	"bytes"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd is the hidden 'sectax man DIR': a man page per command (cobra's
// doc package), each written new
// in DIR (userfile.CreateIn: nothing planted at a page's name is followed).
func newManCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write a man page for every command into DIR (sectax.1, sectax-run.1, …)",
		Long: `Write a man page (section 1) for sectax and each of its commands into DIR,
made if missing. man finds them in a man1 folder on its path: 'sectax man
~/.local/share/man/man1' (or /usr/local/share/man/man1 as root), then 'man
sectax-run'; 'man -l DIR/sectax.1' reads one anywhere. The pages' date is
SOURCE_DATE_EPOCH's when it is set, else today's.`,
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return usagef("man: %v: pass a folder you can write", err)
			}
			root := cmd.Root()
			root.PersistentFlags().Lookup("db").DefValue = "~/.local/share/sectax/sectax.db" // not this user's path
			root.InitDefaultCompletionCmd()
			n := 0
			var walk func(c *cobra.Command) error
			walk = func(c *cobra.Command) error {
				if c != root && (!c.IsAvailableCommand() || c.Name() == "help") {
					return nil
				}
				c.DisableAutoGenTag = true
				var b bytes.Buffer
				if err := doc.GenMan(c, &doc.GenManHeader{Source: "sectax " + Version, Manual: "sectax manual"}, &b); err != nil {
					return err
				}
				name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
				if err := g.writeInFolder(args[0], name, b.Bytes()); err != nil {
					return err
				}
				n++
				for _, sub := range c.Commands() {
					if err := walk(sub); err != nil {
						return err
					}
				}
				return nil
			}
			if err := walk(root); err != nil {
				return err
			}
			g.notice("wrote %d man pages to %s", n, args[0])
			return nil
		},
	}
}
