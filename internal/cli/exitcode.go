package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sectax/sectax/internal/exit"
)

// Exit codes: the contract of the README. This is the one place that turns
// a failure (an error of an exit.Kind) into a number; no other package
// knows the numbers (exitcode_test.go checks).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitUnmet       = 3
	ExitInterrupted = 130
)

// exitCode is the process status for err, the error a command returned
// (nil: success). A command whose context was cancelled (Ctrl-C, SIGTERM)
// exits as interrupted whatever error its work returned on the way out,
// unless that error says otherwise.
func exitCode(ctx context.Context, err error) int {
	if err == nil {
		return ExitOK
	}
	k := exit.Of(err)
	var kinded exit.Kinded
	if ctx.Err() != nil && (!errors.As(err, &kinded) || errors.Is(err, context.Canceled)) {
		k = exit.Interrupted
	}
	switch k {
	case exit.Usage:
		return ExitUsage
	case exit.Unmet:
		return ExitUnmet
	case exit.Interrupted:
		return ExitInterrupted
	}
	return ExitError
}

// usagef returns a usage error (exit 2).
func usagef(format string, a ...any) error { return exit.Usagef(format, a...) }

// usageErrors makes cobra's own checks of every command return usage
// errors: the positional-argument validators, the required flags and the
// flag groups. (Bad flags go through the root's FlagErrorFunc, an unknown
// subcommand through findUsage.) Cobra's errors carry no type, so they are
// marked where cobra calls out to us rather than recognised by their text.
func usageErrors(c *cobra.Command) {
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
		c.Args = func(cmd *cobra.Command, args []string) error { return exit.Wrap(exit.Usage, v(cmd, args)) }
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
		usageErrors(sub)
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
			err = usagef("%s needs --%s: give %s", cmd.CommandPath(), f.Name, f.Usage)
		}
	})
	return err
}

// findUsage is the error of an unknown subcommand of args, a usage error,
// or nil. cobra reports it from Find, before any command runs.
func findUsage(root *cobra.Command, args []string) error {
	_, _, err := root.Find(args)
	return exit.Wrap(exit.Usage, err)
}

// interruptedMessage is the message of a command ended by Ctrl-C or
// SIGTERM, in words: Go's "context canceled", wherever the command's work
// returned it from (a run, a lab boot, a campaign, decide, the store's
// busy wait), becomes "interrupted (SIGINT)", and a message that does not
// say it was interrupted is prefixed with that.
func interruptedMessage(ctx context.Context, msg string) string {
	why := "interrupted"
	if c := context.Cause(ctx); c != nil {
		switch {
		case strings.HasPrefix(c.Error(), "interrupt"):
			why += " (SIGINT)"
		case strings.HasPrefix(c.Error(), "terminated"):
			why += " (SIGTERM)"
		}
	}
	switch {
	case strings.TrimSpace(msg) == context.Canceled.Error():
		return why
	case strings.Contains(msg, context.Canceled.Error()):
		return strings.ReplaceAll(msg, context.Canceled.Error(), why)
	case strings.Contains(msg, "interrupted"):
		return msg
	}
	return why + ": " + msg
}
