package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/userfile"
	"github.com/sectax/sectax/internal/wslconfig"
)

// wslDeps are the parts of the outside world 'sectax wslconfig' uses; the
// zero value is the real system.
type wslDeps struct {
	// Run runs cmd.exe and wslpath (wslconfig.ExecRunner when nil).
	Run wslconfig.Runner
	// Getenv reads $USERPROFILE (os.Getenv when nil).
	Getenv func(string) string
	// Timeout bounds each interop command (5 s when zero).
	Timeout time.Duration
}

type wslOpts struct {
	path   string
	dryRun bool
}

func newWSLConfigCmd(g *Globals) *cobra.Command {
	o := &wslOpts{}
	cmd := &cobra.Command{
		Use:   "wslconfig",
		Short: `Show or change kernelCommandLine in %UserProfile%\.wslconfig (WSL 2), losslessly`,
		Long: `Show or change the kernel command line that WSL 2 gives its virtual machine:
the kernelCommandLine key of the [wsl2] section of %UserProfile%\.wslconfig.

The file is read the way WSL reads it (case-insensitive names, # comments,
quotes and escapes, the first of duplicated keys wins; UTF-8 with or without
BOM or UTF-16LE with BOM; CRLF or LF). An edit changes only the
kernelCommandLine line (adding it, or the [wsl2] section, when missing),
keeps every other byte, the encoding and the line endings, writes a
timestamped backup beside the file and replaces the file atomically.

The file is found with --path, else through %UserProfile% (cmd.exe through
WSL interop, converted with wslpath), else as the only user profile under the
Windows drive mounts (/mnt/c/Users/NAME).

A change applies when the WSL VM next starts: run 'wsl --shutdown' in Windows
PowerShell or cmd, open the distro again, then 'sectax verify'.`,
		Example: `  sectax wslconfig show
  sectax wslconfig set mitigations=off audit=0 --dry-run
  sectax wslconfig set mitigations=off
  sectax wslconfig unset mitigations
  sectax wslconfig show --path /mnt/c/Users/me/.wslconfig`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("wslconfig needs a subcommand: show, set or unset (see sectax wslconfig --help)")
		},
	}
	cmd.PersistentFlags().StringVar(&o.path, "path", "", "the .wslconfig `FILE` (default: %UserProfile%\\.wslconfig, found through WSL interop)")

	show := &cobra.Command{
		Use:   "show",
		Short: "Print the kernelCommandLine WSL uses and where it comes from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(g, "text", "json"); err != nil {
				return err
			}
			// Reading and printing have no cancellation points of their own.
			ctx := cmd.Context()
			return untilCancelled(ctx, func() error { return runWSLShow(ctx, g, o) })
		},
	}
	addFormatFlag(show, g, "text", "text", "json")

	set := &cobra.Command{
		Use:   "set PARAMS...",
		Short: "Put kernel parameters into kernelCommandLine (a parameter with the same name is replaced)",
		Long: `Put kernel parameters into kernelCommandLine of [wsl2]. Parameters already there
are kept; one with the same name (the part before '=') is replaced, so
mitigations=auto becomes mitigations=off. Give each parameter as its own
argument; values with blanks or quotes are refused.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("set needs kernel parameters, for example: sectax wslconfig set mitigations=off")
			}
			return runWSLEdit(cmd.Context(), g, o, "set", args)
		},
	}
	unset := &cobra.Command{
		Use:   "unset PARAMS...",
		Short: "Remove kernel parameters from kernelCommandLine (NAME: any value, NAME=VALUE: that value)",
		Long: `Remove kernel parameters from kernelCommandLine of [wsl2]: NAME removes the
parameter whatever its value, NAME=VALUE only with that value. Other
parameters stay; the line is deleted when none is left.`,
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
	if o.path != "" {
		if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			return wslconfig.Location{}, usagef("--path %s is a folder; give the file, for example --path %s/.wslconfig", o.path, strings.TrimRight(o.path, "/"))
		}
		return wslconfig.Location{Path: o.path, Source: "--path"}, nil
	}
	d := g.deps.WSL
	loc, err := wslconfig.Locator{Root: g.Root, Run: d.Run, Getenv: d.Getenv, Timeout: d.Timeout}.Find(ctx)
	if wslconfig.IsNotFound(err) {
		return loc, usagef("%v; pass --path /mnt/c/Users/NAME/.wslconfig", err)
	}
	if err == nil {
		err = insideRoot(g.Root, loc.Path)
	}
	return loc, err
}

// insideRoot refuses a file found below a --root tree that a symbolic link
// leads out of it: show would print another file, set would rewrite it.
// The file itself may not exist yet; its folder must then be inside.
func insideRoot(root, path string) error {
	if root == "" || filepath.Clean(root) == "/" {
		return nil
	}
	absRoot, err1 := filepath.Abs(root)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return nil
	}
	rel, err := filepath.Rel(absRoot, absPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is outside --root %s; pass --path to name the file", path, root)
	}
	rfs, err := rootfs.Open(absRoot)
	if err != nil {
		return nil // Find has read the root already; nothing to add here
	}
	defer rfs.Close()
	_, err = rfs.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		_, err = rfs.Stat(filepath.Dir(rel))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s leads out of --root %s through a symbolic link (%v); refusing to read or write it: fix the link or pass --path", path, root, userfile.Cause(err))
	}
	return nil
}

// loadWSLConfig reads and parses the file; a missing file is an empty one.
func loadWSLConfig(loc wslconfig.Location) (data []byte, exists bool, f *wslconfig.File, err error) {
	data, exists, err = wslconfig.ReadFile(loc.Path)
	if err != nil {
		return nil, false, nil, err
	}
	f, err = wslconfig.Parse(data)
	if err != nil {
		return nil, false, nil, fmt.Errorf("%s: %v", loc.Path, err)
	}
	return data, exists, f, nil
}

func runWSLShow(ctx context.Context, g *Globals, o *wslOpts) error {
	loc, err := locateWSLConfig(ctx, g, o)
	if err != nil {
		return err
	}
	_, exists, f, err := loadWSLConfig(loc)
	if err != nil {
		return err
	}
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	shown := wslconfig.Show(loc, exists, f)
	if g.Format == "json" {
		return finish(report.WSLConfigJSON(w, shown))
	}
	return finish(report.WSLConfigText(w, shown))
}

func runWSLEdit(ctx context.Context, g *Globals, o *wslOpts, verb string, params []string) error {
	if err := wslconfig.CheckParams(params); err != nil {
		return usagef("%v", err)
	}
	loc, err := locateWSLConfig(ctx, g, o)
	if err != nil {
		return err
	}
	var (
		data   []byte
		exists bool
		f      *wslconfig.File
	)
	err = untilCancelled(ctx, func() (err error) {
		data, exists, f, err = loadWSLConfig(loc)
		return err
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("%v; the file is unchanged", err)
	}
	edit := f.Set
	if verb == "unset" {
		edit = f.Unset
	}
	nf, res, err := edit(params)
	var pe *wslconfig.ParamError
	switch {
	case errors.As(err, &pe):
		return usagef("%v", err)
	case err != nil:
		return fmt.Errorf("%s: %v; the file is unchanged", loc.Path, err)
	}
	out := g.stdout
	warn := func() {
		for _, d := range nf.Warnings() {
			fmt.Fprintf(g.stderr, "sectax: warning: %s: line %d: %s\n", loc.Path, d.Line, d.Msg)
		}
	}
	if !res.Changed {
		warn()
		if verb == "set" {
			fmt.Fprintf(out, "%s: kernelCommandLine (line %d) already has %s; nothing to change\n", loc.Path, res.Line, strings.Join(params, " "))
		} else {
			fmt.Fprintf(out, "%s: kernelCommandLine has none of %s; nothing to change\n", loc.Path, strings.Join(res.Absent, " "))
		}
		return nil
	}
	if o.dryRun {
		return untilCancelled(ctx, func() error {
			fmt.Fprintln(out, report.DryRunLine)
			if err := writeUnifiedDiff(out, loc.Path, verb, f.Text(), nf.Text()); err != nil {
				return err
			}
			warn()
			return nil
		})
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now // the backup's time stamp
	if g.deps.Now != nil {
		now = g.deps.Now
	}
	var old []byte
	if exists {
		old = data
	}
	wr, err := wslconfig.WriteFile(loc.Path, old, nf.Bytes(), now())
	if err != nil {
		return err
	}
	where := wr.Path
	if wr.Path != loc.Path {
		where = fmt.Sprintf("%s (the target of the link %s)", wr.Path, loc.Path)
	}
	switch {
	case res.Removed:
		fmt.Fprintf(out, "updated %s: removed the kernelCommandLine line, nothing was left in it\n", where)
	case res.Created == "section":
		fmt.Fprintf(out, "updated %s: added a [wsl2] section with kernelCommandLine (line %d)\n", where, res.Line)
	case res.Created == "key":
		fmt.Fprintf(out, "updated %s: added kernelCommandLine to [wsl2] (line %d)\n", where, res.Line)
	default:
		fmt.Fprintf(out, "updated %s: kernelCommandLine on line %d\n", where, res.Line)
	}
	for _, c := range res.Changes {
		switch {
		case c.Old == "":
			fmt.Fprintf(out, "  + %s\n", c.New)
		case c.New == "":
			fmt.Fprintf(out, "  - %s\n", c.Old)
		default:
			fmt.Fprintf(out, "  %s -> %s\n", c.Old, c.New)
		}
	}
	switch {
	case !res.Removed && res.New == "":
		fmt.Fprintf(out, "kernelCommandLine is now empty; the line stays because deleting it would bring the later kernelCommandLine (which WSL now ignores) into force\n")
	case !res.Removed:
		fmt.Fprintf(out, "kernelCommandLine = %s\n", res.New)
	}
	if len(res.Absent) > 0 {
		fmt.Fprintf(out, "not there (nothing to remove): %s\n", strings.Join(res.Absent, " "))
	}
	if wr.Backup != "" {
		fmt.Fprintf(out, "backup: %s\n", wr.Backup)
	} else {
		fmt.Fprintf(out, "backup: none (the file is new)\n")
	}
	warn()
	if g.Quiet {
		return nil
	}
	fmt.Fprintf(out, `next: WSL reads .wslconfig only when its VM starts. In Windows PowerShell or cmd
(not in this shell) run:
    wsl --shutdown
then open the distro again and check that the kernel got the parameters:
    sectax verify --expect %s
`, expectFor(verb, params, res))
	return nil
}

// expectFor is the verify expectation that matches the edit.
func expectFor(verb string, params []string, res wslconfig.Result) string {
	hasMit := false
	for _, t := range mitigation.ParseCmdline(res.New).Params {
		if t.Raw == "mitigations=off" {
			return "off"
		}
		if t.Key() == "mitigations" {
			hasMit = true
		}
	}
	if verb == "unset" {
		if !hasMit {
			return "auto"
		}
		return fmt.Sprintf("%q", res.New)
	}
	return fmt.Sprintf("%q", strings.Join(params, " "))
}

// writeUnifiedDiff prints the change as a unified diff of the text (line
// endings are not shown; a last line without one is marked as git does).
func writeUnifiedDiff(w io.Writer, path, verb, before, after string) error {
	return difflib.WriteUnifiedDiff(w, difflib.UnifiedDiff{
		A:        diffLines(before),
		B:        diffLines(after),
		FromFile: path,
		ToFile:   path + " (after sectax wslconfig " + verb + ")",
		Context:  3,
	})
}

func diffLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s+"\n\\ No newline at end of file\n")
			break
		}
		n := 1
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			n = 2
		}
		out = append(out, s[:i]+"\n")
		s = s[i+n:]
	}
	return out
}
