// Package exit is the taxonomy of sectax's failures: every error that should
// not end the process with the default status (a runtime error) says which
// kind of failure it is, and internal/cli alone maps the kind to a number.
//
// Packages below internal/cli return errors of these kinds (Wrap, New,
// Usagef, or a type of their own with an ExitKind method); they never
// return or know exit numbers.
package exit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Kind is a kind of failure.
type Kind int

const (
	// Runtime is the default: something went wrong while doing what was
	// asked (a file, the store, a workload, the kernel).
	Runtime Kind = iota
	// Usage is a mistake in what was asked: a flag, an argument, a
	// reference to a run that does not exist.
	Usage
	// Unmet says that a check ran and found its expectation not met
	// (verify, a lab or campaign boot that did not verify).
	Unmet
	// Interrupted says that the user stopped the command (Ctrl-C, SIGTERM).
	Interrupted
)

func (k Kind) String() string {
	switch k {
	case Usage:
		return "usage"
	case Unmet:
		return "unmet"
	case Interrupted:
		return "interrupted"
	}
	return "runtime"
}

// Kinded is implemented by errors that know their kind. Error implements
// it; so may a package's own error type (errors.As finds it in a chain).
type Kinded interface {
	error
	ExitKind() Kind
}

// Error is an error of a given kind.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string  { return e.Err.Error() }
func (e *Error) Unwrap() error  { return e.Err }
func (e *Error) ExitKind() Kind { return e.Kind }

// Wrap marks err as a failure of kind k (nil stays nil).
func Wrap(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: k, Err: err}
}

// New returns a new error of kind k with the message msg; it suits
// sentinel errors (var ErrX = exit.New(exit.Usage, "…")).
func New(k Kind, msg string) error { return &Error{Kind: k, Err: errors.New(msg)} }

// Usagef returns a usage error formatted as fmt.Errorf formats (%w wraps).
func Usagef(format string, a ...any) error {
	return &Error{Kind: Usage, Err: fmt.Errorf(format, a...)}
}

// Of returns the kind of err: the first Kinded error in its chain, else
// Interrupted for a cancelled context, else Runtime. Of(nil) is Runtime;
// callers test for nil first.
func Of(err error) Kind {
	var k Kinded
	switch {
	case errors.As(err, &k):
		return k.ExitKind()
	case errors.Is(err, context.Canceled):
		return Interrupted
	}
	return Runtime
}

// OfCommand is the kind of err, the error a command returned with ctx: a
// command whose context was cancelled (Ctrl-C, SIGTERM) was interrupted
// whatever error its work returned on the way out, unless that error has
// a kind of its own other than a cancelled context.
func OfCommand(ctx context.Context, err error) Kind {
	var kinded Kinded
	if ctx.Err() != nil && (!errors.As(err, &kinded) || errors.Is(err, context.Canceled)) {
		return Interrupted
	}
	return Of(err)
}

// InterruptedMessage is msg, the message of a command ended by Ctrl-C or
// SIGTERM, in words: Go's "context canceled", wherever the command's work
// returned it from (a run, a lab boot, a campaign, decide, the store's
// busy wait), becomes "interrupted (SIGINT)", and a message that does not
// say it was interrupted is prefixed with that.
func InterruptedMessage(ctx context.Context, msg string) string {
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

// Choose checks that value is one of accepted, the values of flag (such
// as "--format"): nil when it is, else the one wording of a value that is
// not accepted, a usage error naming the accepted values.
func Choose(flag, value string, accepted ...string) error {
	if slices.Contains(accepted, value) {
		return nil
	}
	return Usagef("%s %q is not accepted (accepted: %s)", flag, value, strings.Join(accepted, ", "))
}
