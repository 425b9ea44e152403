package cli

import (
	"context"

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
// with ctx (nil: success), of the kind exit.OfCommand says.
func exitCode(ctx context.Context, err error) int {
	if err == nil {
		return ExitOK
	}
	switch exit.OfCommand(ctx, err) {
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
