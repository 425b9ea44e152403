package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/wslconfig"
)

// wslDeps are the parts of the outside world 'sectax wslconfig' (and a
// campaign --via wsl) finds the file with: its Run, Getenv and Timeout
// (its Root is --root's); the zero value is the real system.
type wslDeps = wslconfig.Locator

type wslOpts struct {
	path   string
	dryRun bool
}

func newWSLConfigCmd(g *Globals) *cobra.Command {
	o := &wslOpts{}
	cmd := &cobra.Command{
		Use:  "wslconfig",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("wslconfig needs a subcommand: show, set or unset (see sectax wslconfig --help)")
		},
	}
	cmd.PersistentFlags().StringVar(&o.path, "path", "", "the .wslconfig `FILE` (default: %UserProfile%\\.wslconfig, found through WSL interop)")

	show := &cobra.Command{
		Use:  "show",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Reading and printing have no cancellation points of their own.
			ctx := cmd.Context()
			return untilCancelled(ctx, func() error { return runWSLShow(ctx, g, o) })
		},
	}
	addFormatFlag(show, report.WSLConfigFormats.List())

	set := &cobra.Command{
		Use: "set PARAMS...",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("set needs kernel parameters, for example: sectax wslconfig set mitigations=off")
			}
			return runWSLEdit(cmd.Context(), g, o, "set", args)
		},
	}
	unset := &cobra.Command{
		Use: "unset PARAMS...",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("unset needs kernel parameters, for example: sectax wslconfig unset mitigations")
			}
			return runWSLEdit(cmd.Context(), g, o, "unset", args)
		},
	}
	for _, c := range []*cobra.Command{set, unset} {
		c.Flags().BoolVar(&o.dryRun, "dry-run", false, dryRunUsage+" (the change as a unified diff)")
	}
	cmd.AddCommand(show, set, unset)
	return cmd
}

// locateWSLConfig is --path, or the file found by wslconfig.Locator.
func locateWSLConfig(ctx context.Context, g *Globals, o *wslOpts) (wslconfig.Location, error) {
	l := g.deps.WSL
	l.Root = g.Root
	loc, err := l.Choose(ctx, o.path)
	var nf *wslconfig.NotFoundError
	if o.path == "" && errors.As(err, &nf) {
		// Not finding a Windows profile is no surprise outside WSL: say
		// that, not where the search failed.
		if release := sysinfo.NotWSL(g.Root); release != "" {
			return loc, usagef("this machine is not WSL (kernel %s): it has no %%UserProfile%%\\.wslconfig; run this inside a WSL 2 distribution, or pass --path FILE to read a .wslconfig anyway", safetext.Clip(release, 80))
		}
	}
	return loc, err
}

func runWSLShow(ctx context.Context, g *Globals, o *wslOpts) error {
	loc, err := locateWSLConfig(ctx, g, o)
	if err != nil {
		return err
	}
	_, exists, f, err := wslconfig.Load(loc)
	if err != nil {
		return err
	}
	return render(g, report.WSLConfigFormats, wslconfig.Show(loc, exists, f), report.Options{})
}

func runWSLEdit(ctx context.Context, g *Globals, o *wslOpts, verb string, params []string) error {
	if err := wslconfig.CheckParams(params); err != nil {
		return usagef("%v", err)
	}
	loc, err := locateWSLConfig(ctx, g, o)
	if err != nil {
		return err
	}
	var e *wslconfig.Edited
	err = untilCancelled(ctx, func() (err error) {
		e, err = wslconfig.Edit(loc, verb, params, o.dryRun)
		return err
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	now := time.Now // the backup's time stamp
	if g.deps.Now != nil {
		now = g.deps.Now
	}
	if err := e.Write(now()); err != nil {
		return err
	}
	// Printing has no cancellation points of its own (a blocked stderr).
	return untilCancelled(ctx, func() error {
		for _, d := range e.Warnings {
			// Said even under -q (the file was changed), through the one
			// note layout: the path and the message may hold what the file's
			// owner wrote.
			io.WriteString(g.stderr, report.NoteText(fmt.Sprintf("warning: %s: line %d: %s", loc.Path, d.Line, d.Msg), g.deps.StderrWidth))
		}
		return report.WSLEditText(report.WithWidth(g.stdout, g.deps.StdoutWidth), e, !g.Quiet)
	})
}
