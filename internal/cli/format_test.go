package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/workload"
)

// TestBadFormatFirst: every command with --format refuses a value outside
// its table, as a usage error naming the table's formats, before anything
// else: not the bad --root, not the store (none is made), nothing measured
// or booted.
func TestBadFormatFirst(t *testing.T) {
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		f := c.Flags().Lookup("format")
		if f == nil || c.HasSubCommands() {
			return
		}
		n++
		args := strings.Fields(strings.TrimPrefix(c.CommandPath(), "sectax "))
		words, _, _ := strings.Cut(c.Use, "|")
		for _, w := range strings.Fields(words)[1:] { // a placeholder for each required argument
			if unicode.IsUpper(rune(w[0])) {
				args = append(args, "x")
			}
		}
		dir := t.TempDir()
		db := filepath.Join(dir, "sectax.db")
		var out, errb bytes.Buffer
		code := mainWith(context.Background(), append([]string{"--db", db, "--root", filepath.Join(dir, "missing")}, append(args, "--format", "yaml")...),
			&out, &errb, Deps{Registry: workload.Default()})
		want := `--format "yaml" is not accepted (accepted: ` + strings.Join(f.Value.(*formatValue).list.Names(), ", ") + ")"
		if code != ExitUsage || !strings.Contains(errb.String(), want) || out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", c.CommandPath(), code, out.String(), errb.String(), ExitUsage, want)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Errorf("%s: a store was made before --format was checked", c.CommandPath())
		}
	}
	walk(newRootCmd(&Globals{deps: Deps{Registry: workload.Default()}}))
	if n < 20 {
		t.Errorf("%d commands with --format, want every one of them (20 or more)", n)
	}
}
