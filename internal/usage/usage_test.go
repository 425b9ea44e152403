package usage

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/exit"
)

// tree is a small command tree of the shapes sectax has: a command with
// one positional argument, one with typed and required flags, a group of
// subcommands, and a command with a validator of its own.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "tool", SilenceErrors: true, SilenceUsage: true}
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	noop := func(*cobra.Command, []string) error { return nil }
	show := &cobra.Command{Use: "show RUN", Args: cobra.ExactArgs(1), RunE: noop}
	run := &cobra.Command{Use: "run [--runs N]", Args: cobra.NoArgs, RunE: noop}
	run.Flags().Int("runs", 3, "measured repetitions per workload")
	run.Flags().Duration("timeout", 0, "how long to wait")
	run.Flags().Bool("dry", false, "print the plan")
	run.Flags().String("suite", "", "the set of workloads")
	verify := &cobra.Command{Use: "verify", Args: cobra.NoArgs, RunE: noop}
	verify.Flags().String("expect", "", "`STATE`: on or off")
	verify.MarkFlagRequired("expect")
	own := &cobra.Command{Use: "own", RunE: noop, Args: func(*cobra.Command, []string) error {
		return exit.Usagef("own wants nothing of the kind")
	}}
	group := &cobra.Command{Use: "campaign"}
	group.AddCommand(&cobra.Command{Use: "start", Args: cobra.NoArgs, RunE: noop})
	pick := &cobra.Command{Use: "pick NAME [--from DIR] --mode M", Args: cobra.ExactArgs(1), RunE: noop}
	root.AddCommand(show, run, verify, own, group, pick)
	Install(root)
	return root
}

func TestInstall(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the whole message; "" for no error
	}{
		{[]string{"show"}, "tool show takes RUN (got none): see 'tool show --help'"},
		{[]string{"show", "a", "b"}, "tool show takes RUN (got 2: a b): see 'tool show --help'"},
		{[]string{"run", "extra"}, "tool run takes no arguments (got 1: extra): see 'tool run --help'"},
		{[]string{"run", "--runs", "many"}, `--runs "many": not a whole number (--runs int: measured repetitions per workload)`},
		{[]string{"run", "--timeout", "soon"}, `--timeout "soon": not a duration (such as 90s, 10m or 1h30m) (--timeout duration: how long to wait)`},
		{[]string{"run", "--dry=maybe"}, `--dry "maybe": not true or false (--dry : print the plan)`},
		{[]string{"run", "--sutie", "quick"}, "unknown flag: --sutie: did you mean --suite? ('tool run --help' lists its flags)"},
		{[]string{"run", "--zzzzzzzz"}, "unknown flag: --zzzzzzzz ('tool run --help' lists its flags)"},
		{[]string{"pick"}, "tool pick takes NAME (got none): see 'tool pick --help'"},
		{[]string{"verify"}, "tool verify needs --expect: give STATE: on or off"},
		{[]string{"verify", "--expect", "on"}, ""},
		{[]string{"own"}, "own wants nothing of the kind"},
		{[]string{"campaign", "frobnicate"}, `unknown command "frobnicate" for "tool campaign": see 'tool campaign --help'`},
		{[]string{"campaign"}, ""},
	} {
		root := tree()
		root.SetArgs(c.args)
		err := root.Execute()
		got := ""
		if err != nil {
			got = err.Error()
			if k := exit.Of(err); k != exit.Usage {
				t.Errorf("%q: %v is of kind %v, want a usage error", c.args, err, k)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("%q: the error is more than one line: %q", c.args, got)
			}
		}
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}

// An unknown command is reported by cobra before any command runs, as an
// error of no kind: Unknown words it (with cobra's suggestion) and marks it.
func TestUnknown(t *testing.T) {
	root := tree()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, `unknown command "rnu" for "tool": did you mean run? ('tool --help' lists the commands)`},
		{[]string{"frobnicate"}, `unknown command "frobnicate" for "tool" ('tool --help' lists the commands)`},
		{[]string{"run"}, ""},
	} {
		err := Unknown(root, c.args)
		got := ""
		if err != nil {
			got = err.Error()
			if exit.Of(err) != exit.Usage {
				t.Errorf("%q: %v is not a usage error", c.args, err)
			}
		}
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}
