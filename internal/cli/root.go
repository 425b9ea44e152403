// Package cli is the command-line interface of sectax: one file per
// subcommand, and the only package that prints or exits.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/workload"
)

// Exit codes: the contract of DESIGN.md.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitUnmet       = 3
	ExitInterrupted = 130
)

// Version is the sectax version, set at build time with
// -ldflags "-X github.com/sectax/sectax/internal/cli.Version=…".
var Version = "0.1.0-dev"

// Globals are the flags every subcommand accepts.
type Globals struct {
	DB      string
	Root    string
	Format  string
	Output  string
	NoColor bool
	Quiet   bool

	stdout, stderr io.Writer
	// deps are replaced by tests.
	deps Deps
}

// Deps are the parts of the outside world that tests replace.
type Deps struct {
	// Registry is the set of workloads (workload.Default() normally).
	Registry *workload.Registry
	// Exe and WorkerArgs say how to re-execute sectax as a worker.
	Exe        string
	WorkerArgs []string
	// StderrIsTerminal decides whether progress is drawn.
	StderrIsTerminal bool
	// Now and NewRunID stamp runs; tests fix them.
	Now      func() time.Time
	NewRunID func() string
	// WSL is what 'sectax wslconfig' runs and reads (zero: the real system).
	WSL wslDeps
	// Campaign is what 'sectax campaign' reboots with (zero: the real system).
	Campaign campaignDeps
}

// usageError marks errors that exit with status 2.
type usageError struct{ error }

func (e usageError) ExitCode() int { return ExitUsage }

// usagef returns a usage error (exit 2).
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError carries a specific exit code with an optional message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }
func (e *exitError) ExitCode() int { return e.code }

// Main runs sectax with args and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if lab.IsGuest() {
		labGuestMain() // does not return: the guest powers off
	}
	if len(args) > 0 && args[0] == workload.WorkerCommand {
		if err := workload.WorkerMain(args[1:]); err != nil {
			fmt.Fprintf(stderr, "sectax: %v\n", err)
			return ExitError
		}
		return ExitOK
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	deps := Deps{
		Registry:         workload.Default(),
		Exe:              "/proc/self/exe",
		WorkerArgs:       []string{workload.WorkerCommand},
		StderrIsTerminal: isTerminal(stderr),
		Now:              time.Now,
		NewRunID:         newRunID,
	}
	return mainWith(ctx, args, stdout, stderr, deps)
}

// mainWith is Main with its dependencies injected.
func mainWith(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	g := &Globals{stdout: stdout, stderr: stderr, deps: deps}
	root := newRootCmd(g)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(ctx, err)
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "sectax: %s\n", oneLine(msg))
	}
	return code
}

func exitCode(ctx context.Context, err error) int {
	var ec interface{ ExitCode() int }
	switch {
	case errors.As(err, &ec):
		return ec.ExitCode()
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return ExitInterrupted
	case isCobraUsage(err):
		return ExitUsage
	}
	return ExitError
}

// isCobraUsage recognises the errors cobra returns for bad flags and
// arguments, which carry no type.
func isCobraUsage(err error) bool {
	m := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand flag", "unknown command",
		"invalid argument", "flag needs an argument", "accepts ", "requires at least",
		"requires exactly", "required flag", "bad flag syntax", "if any flags in the group"} {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func newRootCmd(g *Globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "sectax",
		Short: "Measure what CPU-vulnerability mitigations cost on this machine",
		Long: `sectax measures the performance cost (the "security tax") of the Linux kernel's
CPU-vulnerability mitigations on this machine, with perf-bench-faithful
microbenchmarks and statistics you can trust.

Typical workflow (mitigations change only with a reboot):

  sectax env                       # this machine and its mitigation state
  sectax run --label on            # with the default mitigations
  sectax advise --target off       # the exact steps here, and what you give up
  sectax wslconfig set mitigations=off   # on WSL 2; then 'wsl --shutdown' in Windows
  (or reboot with mitigations=off on a native Linux)
  sectax verify --expect off       # did the change take effect?
  sectax run --label off
  sectax compare on off            # add --format html -o tax.html for the report

Exit status: 0 success, 1 runtime error, 2 usage error, 3 verify found the
expectation not met, 130 interrupted (SIGINT/SIGTERM).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&g.DB, "db", defaultDB(), "database file ($SECTAX_DB, else $XDG_DATA_HOME/sectax/sectax.db)")
	pf.StringVar(&g.Root, "root", "/", "read /proc and /sys below `DIR` instead of /")
	pf.StringVarP(&g.Output, "output", "o", "", "write the result to `FILE` instead of standard output")
	pf.BoolVar(&g.NoColor, "no-color", os.Getenv("NO_COLOR") != "", "no colour in terminal output (also NO_COLOR)")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "print no progress or notices")

	// The explicit list of subcommands, one file each.
	root.AddCommand(
		newWorkloadsCmd(g),
		newRunCmd(g),
		newCrosscheckCmd(g),
		newEnvCmd(g),
		newWSLConfigCmd(g),
		newListCmd(g),
		newShowCmd(g),
		newRmCmd(g),
		newExportCmd(g),
		newImportCmd(g),
		newCompareCmd(g),
		newBaselinesCmd(g),
		newAdviseCmd(g),
		newVerifyCmd(g),
		newCampaignCmd(g),
		newLabCmd(g),
	)
	return root
}

// addFormatFlag adds --format with the accepted values listed in its help.
func addFormatFlag(cmd *cobra.Command, g *Globals, def string, accepted ...string) {
	cmd.Flags().StringVar(&g.Format, "format", def, "output format: "+strings.Join(accepted, "|"))
}

// checkFormat refuses a --format value that the command does not accept.
func checkFormat(g *Globals, accepted ...string) error {
	for _, a := range accepted {
		if g.Format == a {
			return nil
		}
	}
	return usagef("--format %q is not accepted (accepted: %s)", g.Format, strings.Join(accepted, ", "))
}

// output returns where the command's result goes: -o FILE or stdout. A
// file is written under a temporary name and renamed by finish(nil), so a
// failed command leaves nothing half-written; finish(err) removes it and
// returns err.
func (g *Globals) output() (w io.Writer, finish func(error) error, err error) {
	if g.Output == "" || g.Output == "-" {
		return g.stdout, func(err error) error { return err }, nil
	}
	f, err := os.CreateTemp(filepath.Dir(g.Output), ".sectax-*")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot write %s: %w", g.Output, err)
	}
	// CreateTemp makes the file private; a report is for reading and sharing.
	f.Chmod(0o644)
	finish = func(err error) error {
		cerr := f.Close()
		if err == nil && cerr == nil {
			cerr = os.Rename(f.Name(), g.Output)
		}
		if err != nil || cerr != nil {
			os.Remove(f.Name())
		}
		if err != nil {
			return err
		}
		if cerr != nil {
			return fmt.Errorf("cannot write %s: %w", g.Output, cerr)
		}
		return nil
	}
	return f, finish, nil
}

func defaultDB() string {
	if p := os.Getenv("SECTAX_DB"); p != "" {
		return p
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "sectax", "sectax.db")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "sectax", "sectax.db")
	}
	return "sectax.db"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := termios(int(f.Fd()))
	return err == nil
}
