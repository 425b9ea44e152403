package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/store"
)

// campaignDeps are the parts of the outside world 'sectax campaign' reboots
// with; the zero value is the real system.
type campaignDeps = campaign.Deps

type campaignOpts struct {
	req   campaign.Request
	alpha float64
	// margin is --margin of campaign report (addMarginFlag).
	margin float64
}

func newCampaignCmd(g *Globals) *cobra.Command {
	o := &campaignOpts{}
	cmd := &cobra.Command{
		Use: "campaign",
	}
	var sel *plan.Request
	start := &cobra.Command{
		Use:  "start",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.req.Options.Request = *sel
			return runCampaignStart(cmd.Context(), g, o)
		},
	}
	f := start.Flags()
	f.StringArrayVar(&o.req.Configs, "config", nil, "a configuration: on, off, or NAME=PARAMS such as nopti=pti=off (repeatable; default on and off)")
	f.StringVar(&o.req.Plan, "plan", "", "take the configurations from this kernel's attribution plan of `KIND`: "+strings.Join(attribute.Selections, "|")+" (see 'sectax attribute plan'; not with --config)")
	f.IntVar(&o.req.Boots, "boots", campaign.DefaultBoots, "boots per configuration (2 or more make the boot the unit of the comparison)")
	f.StringVar(&o.req.Label, "label", "", "`PREFIX` of the runs' labels, PREFIX-CONFIG (default campaign-XXXXXX)")
	f.StringVar(&o.req.Via, "via", "", "how to reboot: kexec|wsl|manual (default wsl on WSL 2, else kexec)")
	f.Int64Var(&o.req.Seed, "seed", 0, "seed of the shuffled boot order (default: random, recorded)")
	f.StringVar(&o.req.Kernel, "kernel", "", "with --via kexec: the kernel image (default /boot/vmlinuz-$(uname -r))")
	f.StringVar(&o.req.Initrd, "initrd", "", "with --via kexec: its initrd (default the running kernel's, if any)")
	f.StringVar(&o.req.WSLConfig, "wslconfig", "", "with --via wsl: the .wslconfig `FILE` (default found as 'sectax wslconfig' does)")
	f.StringVar(&o.req.Distro, "distro", "", "with --via wsl: the distribution Windows starts again (default $WSL_DISTRO_NAME)")
	f.Float64Var(&o.req.Options.TargetCI, "target-ci", 0, "adaptive repetition: after --boots, keep adding boots until the interval of each configuration's change against the first is at most ±`PCT` points (needs --budget)")
	f.DurationVar(&o.req.Options.Budget, "budget", 0, "with --target-ci: the longest the whole campaign may run; no added round starts that would overrun it")
	sel = measureFlags(start)
	f.BoolVar(&o.req.DryRun, "dry-run", false, dryRunUsage)
	yesFlag(start, g)
	addFormatFlag(start, report.CampaignStatusFormats.List())

	status := &cobra.Command{
		Use:  "status [CAMPAIGN]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCampaignStatus(cmd.Context(), g, firstArg(args))
		},
	}
	addFormatFlag(status, report.CampaignStatusFormats.List())
	resume := &cobra.Command{
		Use:  "resume",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCampaignResume(cmd.Context(), g) },
	}
	abort := &cobra.Command{
		Use:  "abort [CAMPAIGN]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCampaignAbort(cmd.Context(), g, firstArg(args))
		},
	}
	rep := &cobra.Command{
		Use:  "report [CAMPAIGN]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCampaignReport(cmd.Context(), g, firstArg(args), o)
		},
	}
	addFormatFlag(rep, report.ComparisonFormats.List())
	rep.Flags().Float64Var(&o.alpha, "alpha", stats.DefaultAlpha, "significance level of the U test")
	addMarginFlag(rep, &o.margin)
	cmd.AddCommand(start, status, resume, abort, rep)
	return cmd
}

func firstArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return ""
}

// campaignEngine is the engine on this machine (or the test's).
func campaignEngine(g *Globals, db *store.DB) (*campaign.Engine, error) {
	newID := g.deps.NewRunID
	if newID == nil {
		newID = newRunID
	}
	return campaign.NewEngine(campaign.Setup{DB: db, Store: g.dbRef, Root: g.Root, Deps: g.deps.Campaign, Now: g.deps.Now, NewID: newID,
		Out: g.laidOut(nil), Runs: campaignRuns(g)})
}

// campaignRuns is how a campaign measures here: this sectax's workloads
// and workers.
func campaignRuns(g *Globals) campaign.Runs {
	return campaign.Runs{Registry: g.deps.Registry, Version: Version, Exe: g.deps.Exe, WorkerArgs: g.deps.WorkerArgs}
}

func runCampaignStart(ctx context.Context, g *Globals, o *campaignOpts) error {
	if err := o.req.Check(); err != nil {
		return err
	}
	// The workloads are checked now, not after the first reboot.
	sel := o.req.Options.Request
	sel.Timeout = plan.DefaultTimeout
	pl, err := makePlan(ctx, g, &sel, []string{"native"})
	if err != nil {
		return err
	}
	o.req.RunEstimate = pl.Estimate(sel.Warmup, pastRuns(ctx, g, pl, "native"))
	snap, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	d := g.deps.Campaign
	d.WSL = g.deps.WSL
	ref, err := g.ref()
	if err != nil {
		return err
	}
	req, err := campaign.Prepare(ctx, &o.req, snap, g.Root, ref, d, g.out)
	if err != nil {
		return err
	}
	if o.req.DryRun {
		p, err := campaign.MakePreview(ctx, req, snap, g.Root)
		if err != nil {
			return err
		}
		return render(g, report.CampaignPreviewFormats, p, report.Options{})
	}
	if err := g.deps.Campaign.CheckRoot(g.Root, "start"); err != nil {
		return err
	}
	o2 := g.storeOptions()
	o2.Create = true
	db, done, err := ref.OpenMeasuring(ctx, o2)
	if err != nil {
		return err
	}
	defer done()
	e, err := campaignEngine(g, db)
	if err != nil {
		return err
	}
	if req.Seed == 0 {
		req.Seed = randomSeed()
	}
	rec, err := e.Start(ctx, *req)
	if rec != nil {
		if werr := writeCampaignStatus(g, rec); err == nil {
			err = werr
		}
	}
	return err
}

func runCampaignStatus(ctx context.Context, g *Globals, ref string) error {
	db, rec, err := findCampaign(ctx, g, ref)
	if ref == "" && (errors.Is(err, store.ErrNoCampaign) || errors.Is(err, store.ErrNoDatabase)) {
		// Not a mistake: a state (exit 0), and how to leave it.
		w, finish, oerr := g.output()
		if oerr != nil {
			return oerr
		}
		if g.Format == "json" {
			_, err = fmt.Fprintln(w, "null")
		} else {
			err = report.Prose(w, err.Error())
		}
		return finish(err)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	if line := campaign.CheckCopy(g.Root, rec); line != "" {
		g.notice("%s", line)
	}
	return writeCampaignStatus(g, rec)
}

// findCampaign opens the store and finds the campaign ref names (this
// host's when ref is empty: campaign.Find); the caller closes db.
func findCampaign(ctx context.Context, g *Globals, ref string) (*store.DB, *store.Campaign, error) {
	db, err := openStore(ctx, g, false)
	if errors.Is(err, store.ErrNoDatabase) {
		return nil, nil, exit.Wrap(exit.Runtime, fmt.Errorf("no campaign: %w; start one with 'sectax campaign start'", err))
	}
	if err != nil {
		return nil, nil, err
	}
	rec, notes, err := campaign.Find(ctx, db, g.Root, g.dbRef, ref)
	for _, n := range notes {
		g.notice("%s", n)
	}
	if err != nil {
		db.Close()
		return nil, nil, campaignRefError(err)
	}
	return db, rec, nil
}

func campaignRefError(err error) error {
	if errors.Is(err, store.ErrNoCampaign) {
		return exit.Wrap(exit.Usage, err)
	}
	return err
}

func runCampaignResume(ctx context.Context, g *Globals) error {
	if err := g.deps.Campaign.CheckRoot(g.Root, "resume"); err != nil {
		return err
	}
	ref, err := g.ref()
	if err != nil {
		return err
	}
	db, done, err := ref.OpenMeasuring(ctx, g.storeOptions())
	if errors.Is(err, store.ErrNoDatabase) {
		return exit.Wrap(exit.Runtime, fmt.Errorf("nothing to resume: %v", err))
	}
	if err != nil {
		return err
	}
	defer done()
	e, err := campaignEngine(g, db)
	if err != nil {
		return err
	}
	rec, err := e.Resume(ctx)
	if errors.Is(err, store.ErrNoCampaign) || errors.Is(err, campaign.ErrNotRunning) {
		return exit.Wrap(exit.Runtime, err)
	}
	if rec != nil && g.Format != "json" {
		g.notice("%s", report.CampaignStatusLine(campaign.StatusOf(rec)))
	}
	return err
}

func runCampaignAbort(ctx context.Context, g *Globals, ref string) error {
	db, err := openStore(ctx, g, false)
	if errors.Is(err, store.ErrNoDatabase) {
		return exit.Wrap(exit.Runtime, fmt.Errorf("nothing to abort: %v", err))
	}
	if err != nil {
		return err
	}
	defer db.Close()
	e, err := campaignEngine(g, db)
	if err != nil {
		return err
	}
	rec, err := e.Abort(ctx, ref)
	if rec == nil {
		if errors.Is(err, campaign.ErrNotRunning) {
			return exit.Wrap(exit.Runtime, err)
		}
		return campaignRefError(err)
	}
	if werr := writeCampaignStatus(g, rec); err == nil {
		err = werr
	}
	return err
}

// runCampaignReport compares the runs of the campaign's configurations:
// every one against the first, in compare's one table. Each side holds one
// run per boot, so the boot is the unit of the comparison.
func runCampaignReport(ctx context.Context, g *Globals, ref string, o *campaignOpts) error {
	if err := stats.CheckAlpha(o.alpha); err != nil {
		return usagef("--alpha: %v", err)
	}
	if err := checkMargin(o.margin); err != nil {
		return err
	}
	db, rec, err := findCampaign(ctx, g, ref)
	if ref == "" && errors.Is(err, store.ErrNoDatabase) {
		nothingStored(g, "start a campaign with `sectax campaign start`")
		return nil
	}
	if err != nil {
		return err
	}
	defer db.Close()
	configs, err := campaign.Configs(rec)
	if err != nil {
		return err
	}
	sides, err := campaign.Sides(ctx, db, rec, configs)
	if err != nil {
		return err
	}
	// Every configuration against the first (on, normally), one Holm
	// family across them, in the layout of 'sectax compare'.
	return writeComparison(ctx, g, sides, compare.Options{Alpha: o.alpha, MarginPct: o.margin}, "")
}

func writeCampaignStatus(g *Globals, rec *store.Campaign) error {
	return render(g, report.CampaignStatusFormats, campaign.StatusOf(rec), report.Options{})
}
