package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/sectax/sectax/internal/child"
)

// newManCmd is 'sectax man DIR': a man page per command (cobra's doc
// package), each written new in DIR (userfile.CreateIn: nothing planted at
// a page's name is followed), then how to make man find them when DIR is
// not on man's path (manPathHint).
func newManCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:  "man DIR",
		Args: cobra.ExactArgs(1),
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
			if hint := manPathHint(cmd.Context(), args[0]); hint != "" {
				g.notice("%s", hint)
			}
			return nil
		},
	}
}

// manPathHint says how man finds the pages written into dir when it would
// not: man looks in the man1 folder of each folder on its path (manpath(1)
// prints it; man-db puts ~/.local/share/man there only while ~/.local/bin
// is on PATH). "" when dir's parent is on that path.
func manPathHint(ctx context.Context, dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if filepath.Base(abs) != "man1" {
		return fmt.Sprintf("man looks for pages in a man1 folder: 'man -l %s' reads one where it is", filepath.Join(dir, "sectax.1"))
	}
	root := filepath.Dir(abs)
	out, err := child.Output(ctx, child.Options{}, "manpath", "-q")
	if err == nil && slices.Contains(strings.Split(strings.TrimSpace(string(out)), ":"), root) {
		return ""
	}
	// A trailing colon keeps the system's folders (man-db, mandoc).
	return fmt.Sprintf("%s is not on man's path: export MANPATH=%s: (in your shell's profile), then 'man sectax-run'", root, root)
}
