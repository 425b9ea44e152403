// Package cli is the command-line interface of sectax: one file per
// subcommand, and the only package that prints or exits.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/term"
	"github.com/sectax/sectax/internal/usage"
	"github.com/sectax/sectax/internal/userfile"
	"github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/workload"
)

// Version is the sectax version, set at build time with
// -ldflags "-X github.com/sectax/sectax/internal/cli.Version=…".
var Version = report.DevVersion

// buildInfo is the binary's build information (nil when it has none).
func buildInfo() *debug.BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return info
}

// Globals are the flags every subcommand accepts.
type Globals struct {
	DB      string
	dbRef   store.Ref // DB parsed (g.ref)
	Root    string
	Format  string
	Output  string
	NoColor bool
	Quiet   bool
	// Yes starts long work without asking (--yes).
	Yes bool

	stdout, stderr io.Writer
	// out is the one printer, made with the root command (newRootCmd).
	out *term.Printer
	// ctx is the running command's context, set before it runs.
	ctx context.Context
	// opened are the output files opened; mainWith finishes (removes) any
	// that the command left unfinished, e.g. when Ctrl-C abandoned its
	// writer (which may still be opening more: hence the lock).
	openedMu  sync.Mutex
	opened    []*userfile.Output
	abandoned bool
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
	// StderrIsTerminal decides whether progress is drawn; Stdin, when
	// StdinIsTerminal too, answers the question before long work.
	StderrIsTerminal bool
	// StderrWidth is the width in columns that notes and progress on
	// stderr fit (term.TextColumns; 0: report.TextWidth).
	StderrWidth int
	// StdoutWidth is the width in columns text on standard output is laid
	// out for (term.TextColumns; 0: report.TextWidth).
	StdoutWidth     int
	Stdin           io.Reader
	StdinIsTerminal bool
	// Now and NewRunID stamp runs; tests fix them.
	Now      func() time.Time
	NewRunID func() string
	// Load reads the machine's load below a root that a run records at
	// its start and end (measure.LoadReader; nil: not recorded, as in
	// tests whose figures must not depend on this machine's load).
	Load func(root string) func() *sysinfo.Load
	// WSL is what 'sectax wslconfig' runs and reads (zero: the real system).
	WSL wslDeps
	// Campaign is what 'sectax campaign' reboots with (zero: the real system).
	Campaign campaignDeps
	// ProofCache is --prove's private cache folder ("": proof.DefaultDir).
	ProofCache string
}

// labGuestMain is sectax as the /init of a lab guest: the lab's tasks and
// the campaign's, whose runs are measured as on a host. It does not
// return: the guest powers off.
func labGuestMain() {
	lab.RegisterTasks(Version)
	g := &Globals{Root: "/", DB: campaign.GuestDB, Format: "text", Yes: true, stdout: os.Stdout, stderr: os.Stderr, deps: Deps{
		Registry: workload.Default(), Exe: "/proc/self/exe", WorkerArgs: []string{workload.WorkerCommand},
		Now: time.Now, NewRunID: newRunID,
	}}
	g.out = g.newPrinter()
	campaign.RegisterTask(g.laidOut(nil), campaignRuns(g))
	vm.GuestMain()
}

// Main runs sectax with args and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if vm.IsGuest() {
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
		StderrIsTerminal: term.IsTerminal(stderr),
		StderrWidth:      term.TextColumns(stderr, os.Getenv("COLUMNS")),
		StdoutWidth:      term.TextColumns(stdout, os.Getenv("COLUMNS")),
		Stdin:            os.Stdin,
		StdinIsTerminal:  term.IsTerminal(os.Stdin),
		Now:              time.Now,
		NewRunID:         newRunID,
		Load:             measure.LoadReader,
	}
	return mainWith(ctx, args, stdout, stderr, deps)
}

// mainWith is Main with its dependencies injected.
func mainWith(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	g := &Globals{Format: "text", stdout: stdout, stderr: stderr, deps: deps}
	root := newRootCmd(g)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	g.finishAbandoned()
	if err == nil {
		return ExitOK
	}
	if exit.Of(err) == exit.Runtime {
		if ferr := usage.Unknown(root, args); ferr != nil {
			err = ferr // cobra failed before running anything: an unknown command
		}
	}
	code := exitCode(ctx, err)
	msg := err.Error()
	if code == ExitInterrupted && msg != "" {
		msg = exit.InterruptedMessage(ctx, msg)
	}
	if msg != "" {
		line := fmt.Sprintf("sectax: %s\n", report.ErrorLine(msg))
		if code != ExitInterrupted {
			io.WriteString(stderr, line)
		} else {
			// Interrupted: the message must not keep us from exiting when
			// standard error is a pipe nobody reads any more.
			done := make(chan struct{})
			go func() { io.WriteString(stderr, line); close(done) }()
			select {
			case <-done:
			case <-time.After(time.Second):
			}
		}
	}
	return code
}

// newPrinter is g's one printer (term.Printer), its -q and --yes set
// once the flags are parsed (newRootCmd).
func (g *Globals) newPrinter() *term.Printer {
	d := g.deps
	return &term.Printer{Err: g.stderr, Terminal: d.StderrIsTerminal, Width: d.StderrWidth, Quiet: g.Quiet, Yes: g.Yes,
		In: d.Stdin, InTerminal: d.StdinIsTerminal}
}

func newRootCmd(g *Globals) *cobra.Command {
	g.out = g.newPrinter()
	root := &cobra.Command{
		Use:           "sectax",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       report.Version(Version, buildInfo()),
	}
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		g.ctx = cmd.Context()
		g.out.Quiet, g.out.Yes = g.Quiet, g.Yes
		return g.useFormat(cmd)
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.DB, "db", store.DefaultPath(), "database file or postgres:// URL ($SECTAX_DB, else $XDG_DATA_HOME/sectax/sectax.db)")
	// --help shows the default as DisplayName does: a SECTAX_DB password stays out of it.
	pf.Lookup("db").DefValue = store.DisplayName(store.DefaultPath())
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
		newPushCmd(g),
		newFleetCmd(g),
		newCompareCmd(g),
		newBaselinesCmd(g),
		newAdviseCmd(g),
		newVerifyCmd(g),
		newAttributeCmd(g), newDecideCmd(g),
		newCampaignCmd(g),
		newLabCmd(g),
		newCorpusCmd(g), newManCmd(g),
	)
	setHelp(root, helpFiles)
	completions(root, g)
	// The commands that only read and print have no cancellation points of
	// their own; a blocked standard output (a pager left waiting) or a slow
	// /proc must not keep Ctrl-C from ending them. run and crosscheck stop
	// their workloads and print what finished; import, rm and wslconfig set
	// check ctx before they write; compare and wslconfig show wrap
	// themselves.
	wrap := func(c *cobra.Command) {
		inner := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			return untilCancelled(cmd.Context(), func() error { return inner(cmd, args) })
		}
	}
	usage.Install(root)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "env", "workloads", "list", "show", "export", "baselines", "advise", "verify":
			wrap(c)
		case "attribute":
			for _, sub := range c.Commands() {
				if sub.Name() == "plan" || sub.Name() == "report" {
					wrap(sub)
				}
			}
		}
	}
	return root
}

// yesFlag adds --yes to a command whose work may be estimated at more
// than an hour (run, campaign start, lab).
func yesFlag(cmd *cobra.Command, g *Globals) {
	cmd.Flags().BoolVarP(&g.Yes, "yes", "y", false, "start work estimated at more than an hour without asking (needed when there is no terminal to ask on)")
}

// output returns where the command's result goes: -o FILE or stdout. A
// file is written through userfile.Create: finish(nil) puts it in
// place, finish(err) leaves the target untouched and returns err.
func (g *Globals) output() (w io.Writer, finish func(error) error, err error) {
	if g.Output == "" || g.Output == "-" {
		return report.WithWidth(g.stdout, g.deps.StdoutWidth), func(err error) error { return err }, nil
	}
	o, err := g.createOutput(g.context(), g.Output)
	if err != nil {
		return nil, nil, err
	}
	return o, o.Finish, nil
}

// context is the command's context (cancelled by SIGINT/SIGTERM).
func (g *Globals) context() context.Context {
	if g.ctx != nil {
		return g.ctx
	}
	return context.Background()
}

// untilCancelled runs f aside and returns its error, or ctx's error as soon
// as ctx is done (Ctrl-C, SIGTERM). It is for commands whose work has no
// cancellation points of its own (reading, computing, rendering) and holds
// nothing that must be undone: f is abandoned, and the process exits with
// status 130 without waiting for it. A -o file is not put in place: the
// caller's finish(ctx error) removes the temporary file.
func untilCancelled(ctx context.Context, f func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
