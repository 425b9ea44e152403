// Package usage words the usage errors of a cobra command tree: each in
// one line, in sectax's words, saying what was expected and where to look
// ('sectax show takes RUN (got none)', '--runs "many": not a whole number
// (--runs N: …)', 'unknown flag: --sutie: did you mean --suite?'), and each
// an exit.Usage error, so the command line exits 2 on every mistake of
// its user. Cobra's own errors carry no type: they are marked where cobra
// calls out (the validators, PreRunE, the FlagErrorFunc), not recognised
// by their text after the fact.
package usage

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sectax/sectax/internal/exit"
)

// Install makes every usage error of root's tree (commands added so far)
// one line of kind exit.Usage: bad flags and their values, positional
// arguments, required flags and flag groups, and a group of subcommands
// given an unknown one (cobra would print its help and exit 0).
func Install(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return exit.Wrap(exit.Usage, flagError(c, err)) })
	install(root)
}

// install makes cobra's own checks of every command return usage
// errors: the positional-argument validators, the required flags and the
// flag groups. (Bad flags go through the root's FlagErrorFunc, an unknown
// subcommand through Unknown.) Cobra's errors carry no type, so they are
// marked where cobra calls out to us rather than recognised by their text.
func install(c *cobra.Command) {
	if c.HasParent() && c.HasSubCommands() && !c.Runnable() {
		// A group of subcommands (campaign, attribute, wslconfig): cobra
		// would print its help for an unknown subcommand and exit 0.
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q: see '%s --help'", args[0], cmd.CommandPath(), cmd.CommandPath())
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	if v := c.Args; v != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := v(cmd, args); err != nil {
				return exit.Wrap(exit.Usage, argsError(cmd, args, err))
			}
			return nil
		}
	}
	if c.PreRunE == nil && c.PreRun == nil {
		// cobra checks the required flags and the flag groups after PreRunE;
		// checking them here first makes their errors usage errors.
		c.PreRunE = func(cmd *cobra.Command, _ []string) error {
			if err := missingFlag(cmd); err != nil {
				return err
			}
			if err := cmd.ValidateRequiredFlags(); err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			return exit.Wrap(exit.Usage, cmd.ValidateFlagGroups())
		}
	}
	for _, sub := range c.Commands() {
		install(sub)
	}
}

// missingFlag is the usage error of the first required flag not given, in
// the project's words: the command, the flag and what it accepts (its
// usage text), instead of cobra's `required flag(s) "expect" not set`.
func missingFlag(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed {
			return
		}
		if req, ok := f.Annotations[cobra.BashCompOneRequiredFlag]; ok && len(req) > 0 && req[0] == "true" {
			_, u := pflag.UnquoteUsage(f)
			err = exit.Usagef("%s needs --%s: give %s", cmd.CommandPath(), f.Name, u)
		}
	})
	return err
}

// Unknown is the error of an unknown subcommand in args, a usage error,
// or nil: cobra reports it from Find, before any command runs, as an
// error of no kind, so the caller asks here when a command failed so.
func Unknown(root *cobra.Command, args []string) error {
	_, _, err := root.Find(args)
	if err == nil {
		return nil
	}
	// cobra's "unknown command "runn" for "sectax"\n\nDid you mean
	// this?\n\trun\n" is several lines: one line, the suggestion in it.
	msg, sugg, _ := strings.Cut(err.Error(), "\n\nDid you mean this?\n")
	msg = strings.TrimSpace(msg)
	if ws := strings.Fields(sugg); len(ws) > 0 {
		msg += fmt.Sprintf(": did you mean %s?", strings.Join(ws, " or "))
	}
	return exit.Wrap(exit.Usage, fmt.Errorf("%s ('%s --help' lists the commands)", msg, root.CommandPath()))
}

// argsError says in the project's words what a command's positional
// arguments should be, from its Use line ("show RUN": "sectax show takes
// RUN (got none): see 'sectax show --help'"), instead of cobra's
// "accepts 1 arg(s), received 0"; an error of the command's own validator
// that is not cobra's count is kept.
func argsError(cmd *cobra.Command, args []string, err error) error {
	m := err.Error()
	// cobra.NoArgs says "unknown command" even of a command with no
	// subcommands; a group's own validator (install) says it rightly.
	if !strings.Contains(m, "arg(s), received") && (cmd.HasSubCommands() || !strings.HasPrefix(m, "unknown command")) {
		return err
	}
	want := "no arguments"
	if _, rest, ok := strings.Cut(cmd.Use, " "); ok {
		// The Use line names flags too ("run [--runs N]", "--format F"):
		// the arguments are what is left without them.
		rest = optionalFlags.ReplaceAllString(rest, " ")
		rest = flagWords.ReplaceAllString(rest, " ")
		if ws := strings.Fields(rest); len(ws) > 0 {
			want = strings.Join(ws, " ")
		}
	}
	got := "none"
	if len(args) > 0 {
		got = fmt.Sprintf("%d: %s", len(args), strings.Join(args, " "))
	}
	return fmt.Errorf("%s takes %s (got %s): see '%s --help'", cmd.CommandPath(), want, got, cmd.CommandPath())
}

var (
	// optionalFlags is a bracketed group of flags in a Use line.
	optionalFlags = regexp.MustCompile(`\[-[^\]]*\]`)
	// flagWords is a flag in a Use line and its value's placeholder.
	flagWords = regexp.MustCompile(`(^|\s)--?[\w-]+(=\S*|\s+[A-Z][A-Z0-9_.]*\b)?`)
)

// unknownFlag is pflag's "unknown flag: --sutie" with the "did you mean"
// that a mistyped command gets: the command's flags (its own and those it
// inherits) within two edits of the name, or that it starts.
func unknownFlag(cmd *cobra.Command, err error, name string) error {
	var names []string
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
	}
	sugg := exit.Suggest(name, names...)
	if len(sugg) == 0 {
		return fmt.Errorf("%w ('%s --help' lists its flags)", err, cmd.CommandPath())
	}
	if len(sugg) > 3 {
		sugg = sugg[:3]
	}
	return fmt.Errorf("%w: did you mean --%s? ('%s --help' lists its flags)", err, strings.Join(sugg, " or --"), cmd.CommandPath())
}

// flagError is a bad flag value in one line with what the flag takes:
// pflag's `invalid argument "3%" for "--runs" flag: strconv.ParseInt:
// parsing "3%": invalid syntax` becomes `--runs "3%": not a whole number
// (--runs N: measured repetitions per workload …)`.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" {
		return unknownFlag(cmd, err, ne.GetSpecifiedName())
	}
	m := err.Error()
	const pre = "invalid argument "
	if !strings.HasPrefix(m, pre) {
		return err
	}
	rest := strings.TrimPrefix(m, pre)
	val, rest, ok1 := strings.Cut(rest, " for ")
	name, why, ok2 := strings.Cut(rest, " flag: ")
	if !ok1 || !ok2 {
		return err
	}
	name = strings.Trim(name, `"`)
	long := name
	if i := strings.LastIndex(name, "--"); i >= 0 {
		long = name[i+2:]
	}
	kind := why // a flag type of sectax's says what it takes
	switch {
	case strings.Contains(m, "ParseInt") || strings.Contains(m, "ParseUint"):
		kind = "not a whole number"
	case strings.Contains(m, "ParseFloat"):
		kind = "not a number"
	case strings.Contains(m, "ParseBool"):
		kind = "not true or false"
	case strings.Contains(m, "time: "):
		kind = "not a duration (such as 90s, 10m or 1h30m)"
	}
	usage := ""
	if f := cmd.Flags().Lookup(long); f != nil {
		n, u := pflag.UnquoteUsage(f)
		usage = fmt.Sprintf(" (--%s %s: %s)", f.Name, n, u)
	}
	return fmt.Errorf("--%s %s: %s%s", long, val, kind, usage)
}
