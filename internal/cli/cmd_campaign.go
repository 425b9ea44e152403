package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/wslconfig"
)

// campaignDeps are the parts of the outside world 'sectax campaign' reboots
// with; the zero value is the real system.
type campaignDeps struct {
	// Mechanism, when set, replaces every reboot mechanism (tests: a fake
	// machine).
	Mechanism campaign.Mechanism
	// Exec runs systemctl and the WSL interop programs
	// (campaign.Exec when nil).
	Exec func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Exe is the sectax binary the resume unit and script run
	// (os.Executable when "").
	Exe string
	// Settle judges the quiet start (the default when nil).
	Settle *campaign.Settler
	// Getenv reads $WSL_DISTRO_NAME (os.Getenv when nil).
	Getenv func(string) string
}

type campaignOpts struct {
	configs   []string
	plan      string
	boots     int
	label     string
	via       string
	seed      int64
	kernel    string
	initrd    string
	wslconfig string
	distro    string
	run       runOptions
	alpha     float64
	targetCI  float64
	budget    time.Duration
}

func newCampaignCmd(g *Globals) *cobra.Command {
	o := &campaignOpts{}
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "Run the on/off comparison across real reboots, each boot verified before it is measured",
		Long: `A campaign measures every configuration (on: the default command line;
off: mitigations=off; NAME=PARAMS: any other) in several boots, in a shuffled
order with a recorded seed, and reboots between them by itself:

  start    plans the boots, installs what resumes the campaign after a boot,
           and reboots into the first configuration
  resume   (run after each boot, by the systemd unit, by Windows, or by you)
           verifies the boot — a new boot id, exactly the configuration's
           parameters on /proc/cmdline, the vulnerability files consistent
           with them — waits for a quiet start, measures, and reboots into
           the next step; at the end it puts everything back
  status   where the campaign stands and what the next boot must be
  abort    stops the campaign and puts everything back
  report   the comparison of the campaign's runs, the boot as the unit

A boot that does not verify is never measured: it is retried once, then the
campaign stops, restores, and says what differed (exit status 3).

Reboot mechanisms (--via): kexec (native Linux, default; needs root, and a
kernel that accepts unsigned kexec images), wsl (WSL 2, default there: edits
.wslconfig and has Windows restart the VM), manual (tells you what to boot).
See docs/campaign.md.`,
		Example: `  sudo sectax campaign start --config on --config off=mitigations=off
  sudo sectax campaign start --plan leave-one-out   # on, off, each mitigation off alone
  sectax campaign status
  sectax campaign report --format html -o tax.html
  sectax campaign start --via manual --boots 3 --suite quick
  sectax campaign abort`,
	}
	start := &cobra.Command{
		Use:   "start",
		Short: "Plan the boots, install the resume hook and reboot into the first step",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runCampaignStart(cmd.Context(), g, o) },
	}
	f := start.Flags()
	f.StringArrayVar(&o.configs, "config", nil, "a configuration: on, off, or NAME=PARAMS such as nopti=pti=off (repeatable; default on and off)")
	f.StringVar(&o.plan, "plan", "", "take the configurations from this kernel's attribution plan of `KIND`: leave-one-out|cumulative|study (see 'sectax attribute plan'; not with --config)")
	f.IntVar(&o.boots, "boots", campaign.DefaultBoots, "boots per configuration (2 or more make the boot the unit of the comparison)")
	f.StringVar(&o.label, "label", "", "`PREFIX` of the runs' labels, PREFIX-CONFIG (default campaign-XXXXXX)")
	f.StringVar(&o.via, "via", "", "how to reboot: kexec|wsl|manual (default wsl on WSL 2, else kexec)")
	f.Int64Var(&o.seed, "seed", 0, "seed of the shuffled boot order (default: random, recorded)")
	f.StringVar(&o.kernel, "kernel", "", "with --via kexec: the kernel image (default /boot/vmlinuz-$(uname -r))")
	f.StringVar(&o.initrd, "initrd", "", "with --via kexec: its initrd (default the running kernel's, if any)")
	f.StringVar(&o.wslconfig, "wslconfig", "", "with --via wsl: the .wslconfig `FILE` (default found as 'sectax wslconfig' does)")
	f.StringVar(&o.distro, "distro", "", "with --via wsl: the distribution Windows starts again (default $WSL_DISTRO_NAME)")
	f.Float64Var(&o.targetCI, "target-ci", 0, "adaptive repetition: after --boots, keep adding boots until the interval of each configuration's change against the first is at most ±`PCT` points (needs --budget)")
	f.DurationVar(&o.budget, "budget", 0, "with --target-ci: the longest the whole campaign may run; no added round starts that would overrun it")
	f.StringVar(&o.run.suite, "suite", "standard", "workload sizes: quick, standard or study")
	f.StringSliceVar(&o.run.only, "only", nil, "run only these workload `IDS`")
	f.StringArrayVar(&o.run.params, "param", nil, "override a parameter: `ID.KEY=VALUE` (repeatable)")
	f.IntVar(&o.run.runs, "runs", 0, "measured repetitions per workload (default: the suite's)")
	f.IntVar(&o.run.warmup, "warmup", 1, "unmeasured repetitions per workload")

	status := &cobra.Command{
		Use:   "status [CAMPAIGN]",
		Short: "Step n of m, what the next boot must be, the last verification, what is left to restore",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCampaignStatus(cmd.Context(), g, firstArg(args))
		},
	}
	addFormatFlag(status, g, "text", "text", "json")
	resume := &cobra.Command{
		Use:   "resume",
		Short: "Verify this boot, measure it and reboot into the next step (run after each boot)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runCampaignResume(cmd.Context(), g) },
	}
	abort := &cobra.Command{
		Use:   "abort [CAMPAIGN]",
		Short: "Stop the campaign and put back everything it changed",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCampaignAbort(cmd.Context(), g, firstArg(args))
		},
	}
	rep := &cobra.Command{
		Use:   "report [CAMPAIGN]",
		Short: "Compare the campaign's runs, every configuration against the first, the boot as the unit",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCampaignReport(cmd.Context(), g, firstArg(args), o)
		},
	}
	addFormatFlag(rep, g, "text", compareFormats...)
	rep.Flags().Float64Var(&o.alpha, "alpha", stats.DefaultAlpha, "significance level of the U test")
	cmd.AddCommand(start, status, resume, abort, rep)
	return cmd
}

func firstArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return ""
}

func (d campaignDeps) exec() func(ctx context.Context, name string, args ...string) ([]byte, error) {
	if d.Exec != nil {
		return d.Exec
	}
	return func(ctx context.Context, name string, args ...string) ([]byte, error) {
		return campaign.Exec(ctx, name, args...)
	}
}

// campaignEngine is the engine on this machine (or the test's).
func campaignEngine(g *Globals, db *store.DB) (*campaign.Engine, error) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return nil, err
	}
	d := g.deps.Campaign
	host := &campaign.Host{Root: g.Root, Exec: d.exec(), Settle: d.Settle}
	now, newID := g.deps.Now, g.deps.NewRunID
	if now == nil {
		now = time.Now
	}
	if newID == nil {
		newID = newRunID
	}
	return &campaign.Engine{
		DB: db, Host: host, KB: kb, Now: now, NewID: newID,
		Say: func(format string, a ...any) { g.notice(format, a...) },
		Mechanisms: func(name string, o campaign.Options) (campaign.Mechanism, error) {
			if d.Mechanism != nil {
				return d.Mechanism, nil
			}
			switch name {
			case "kexec":
				return &campaign.Kexec{Kernel: o.Kernel, Initrd: o.Initrd, Systemd: host.Systemd(), Exec: d.exec()}, nil
			case "wsl":
				return &campaign.WSL{Path: o.WSLConfig, Distro: o.Distro, Exec: d.exec(), Now: now}, nil
			case "manual":
				return campaign.Manual{}, nil
			}
			return nil, usagef("--via %q is not accepted (accepted: kexec, wsl, manual)", name)
		},
		Measure: func(ctx context.Context, m campaign.Measurement) error { return campaignMeasure(ctx, g, db, m) },
		WriteFile: func(path string, old, data []byte) error {
			_, err := wslconfig.WriteFile(path, old, data, now())
			return err
		},
		Extend: func(ctx context.Context, rec *store.Campaign, opts campaign.Options) ([]string, []string, error) {
			return campaignAdapt(ctx, db, rec, opts, now())
		},
	}, nil
}

// campaignAdapt is adaptive repetition of a campaign whose planned boots
// are measured: each configuration is compared with the first, the boot as
// the unit, and those whose interval is still wider than the target get
// another round if it fits in the budget (from the campaign's start, at
// the mean time of a boot so far).
func campaignAdapt(ctx context.Context, db *store.DB, rec *store.Campaign, opts campaign.Options, now time.Time) (more, notes []string, err error) {
	configs, err := campaign.Configs(rec)
	if err != nil {
		return nil, nil, err
	}
	sides, err := campaignSides(ctx, db, rec, configs)
	if err != nil {
		return nil, nil, err
	}
	widths := map[string]float64{}
	for i, c := range configs[1:] {
		rep, err := compare.Compare(sides[0], sides[i+1], compare.Options{})
		if err != nil {
			return nil, nil, err
		}
		widths[c.Name] = bootWidth(rep)
	}
	measured := 0
	boots := map[string]int{}
	for _, s := range rec.Steps {
		if s.Status == campaign.StepMeasured {
			measured++
			boots[s.Config]++
		}
	}
	elapsed := now.Sub(rec.Created)
	ad := lab.Adaptive{TargetPct: opts.TargetCI, Budget: opts.Budget}
	more, stopped := ad.Round(widths, elapsed, elapsed/time.Duration(max(measured, 1)))
	for _, c := range configs[1:] {
		if why, ok := stopped[c.Name]; ok {
			notes = append(notes, adaptiveNote(c.Name, configs[0].Name, widths[c.Name], boots[c.Name], why, ad, elapsed))
		}
	}
	return more, notes, nil
}

// campaignSides are the campaign's measured runs, one side per
// configuration (PREFIX-CONFIG), in the order of the configurations.
func campaignSides(ctx context.Context, db *store.DB, rec *store.Campaign, configs []config.Config) ([]compare.Side, error) {
	var sides []compare.Side
	for _, c := range configs {
		var runs []*run.Run
		var envs []map[string]any
		for _, s := range rec.Steps {
			if s.Config != c.Name || s.Status != campaign.StepMeasured {
				continue
			}
			r, err := db.Get(ctx, s.RunID)
			if err != nil {
				return nil, fmt.Errorf("campaign %s: run %s of step %d: %w", rec.ID, s.RunID, s.Index+1, err)
			}
			env, err := db.Env(ctx, s.RunID)
			if err != nil {
				return nil, err
			}
			runs, envs = append(runs, r), append(envs, env)
		}
		if len(runs) == 0 {
			return nil, fmt.Errorf("campaign %s has no measured boot of %s yet (%s); see 'sectax campaign status'", rec.ID, c.Name, rec.Message)
		}
		sides = append(sides, compare.RunsSide(rec.Label+"-"+c.Name, compare.KindLabel, runs, envs))
	}
	return sides, nil
}

// campaignMeasure is one run of a campaign: sectax run with the campaign's
// options, stored under the id, label, config and campaign block the
// campaign gives.
func campaignMeasure(ctx context.Context, g *Globals, db *store.DB, m campaign.Measurement) error {
	o := &runOptions{suite: m.Options.Suite, only: m.Options.Only, params: m.Options.Params, runs: m.Options.Runs,
		warmup: m.Options.Warmup, timeout: 10 * time.Minute}
	pl, err := makePlan(ctx, g, o, []string{"native"})
	if err != nil {
		return err
	}
	ss := session{label: m.Label, engine: "native", text: writeRunText,
		fill: func(r *run.Run) { r.ID, r.Config, r.Campaign = m.RunID, m.Config, m.Campaign }}
	ss.recordIn(ctx, g, db)
	return measure(ctx, g, o, pl, ss)
}

func runCampaignStart(ctx context.Context, g *Globals, o *campaignOpts) error {
	var configs []config.Config
	var err error
	if o.targetCI != 0 || o.budget != 0 {
		if o.targetCI == 0 {
			return usagef("--budget bounds adaptive repetition: give --target-ci PCT too")
		}
		if err := (lab.Adaptive{TargetPct: o.targetCI, Budget: o.budget}).Check(); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
	}
	if o.plan == "" {
		if configs, err = config.ParseAll(o.configs); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		if _, err := campaign.Plan(configs, o.boots, 1); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
	} else if len(o.configs) > 0 {
		return usagef("--plan and --config are mutually exclusive: --plan %s takes the configurations from this kernel's attribution plan; give one or the other", o.plan)
	} else if !slices.Contains(attribute.Selections, o.plan) {
		return usagef("--plan %q is not accepted (accepted: %s)", o.plan, strings.Join(attribute.Selections, ", "))
	}
	if o.label != "" && !labelRE.MatchString(o.label) {
		return usagef("--label %q: use letters, digits, '.', '_' or '-'", o.label)
	}
	// The workloads are checked now, not after the first reboot.
	o.run.timeout = 10 * time.Minute
	if _, err := makePlan(ctx, g, &o.run, []string{"native"}); err != nil {
		return err
	}
	snap, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	if o.plan != "" {
		if configs, err = planConfigs(g, snap, o.plan); err != nil {
			return err
		}
		if _, err := campaign.Plan(configs, o.boots, 1); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
	}
	d := g.deps.Campaign
	via := o.via
	if via == "" {
		via = "kexec"
		if snap.WSL != nil {
			via = "wsl"
		}
	}
	dbPath, err := store.Locate(g.DB)
	if err != nil {
		return err
	}
	exe := d.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("cannot tell where the sectax binary is (%v); the resume step needs it", err)
		}
	}
	opts := campaign.Options{Suite: o.run.suite, Only: o.run.only, Params: o.run.params, Runs: o.run.runs,
		Warmup: o.run.warmup, Exe: exe, DB: dbPath, TargetCI: o.targetCI, Budget: o.budget}
	switch via {
	case "kexec":
		if snap.WSL != nil && d.Mechanism == nil {
			return usagef("--via kexec cannot reboot a WSL 2 guest (Windows starts its kernel); use --via wsl or --via manual")
		}
		opts.Kernel, opts.Initrd = o.kernel, o.initrd
		if opts.Kernel == "" {
			opts.Kernel, opts.Initrd = campaign.DefaultImages("/", snap.Kernel.Release)
			if o.initrd != "" {
				opts.Initrd = o.initrd
			}
		}
		if os.Geteuid() != 0 && d.Mechanism == nil {
			return exit.Wrap(exit.Runtime, errors.New("--via kexec needs root (kexec_file_load needs CAP_SYS_BOOT, and the resume unit goes to /etc/systemd/system): run sudo sectax campaign start …, or use --via manual"))
		}
	case "wsl":
		loc, err := locateWSLConfig(ctx, g, &wslOpts{path: o.wslconfig})
		if err != nil {
			return err
		}
		opts.WSLConfig = loc.Path
		getenv := d.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		opts.Distro = o.distro
		if opts.Distro == "" {
			opts.Distro = getenv("WSL_DISTRO_NAME")
		}
	case "manual":
	default:
		return usagef("--via %q is not accepted (accepted: kexec, wsl, manual)", via)
	}
	release, err := g.measureLock(false)
	if err != nil {
		return err
	}
	defer release()
	db, err := openStore(ctx, g, true)
	if err != nil {
		return err
	}
	defer db.Close()
	e, err := campaignEngine(g, db)
	if err != nil {
		return err
	}
	seed := o.seed
	if seed == 0 {
		seed = randomSeed()
	}
	rec, err := e.Start(ctx, campaign.StartRequest{Configs: configs, Boots: o.boots, Seed: seed, Label: o.label, Via: via, Options: opts})
	if rec != nil {
		if rec, ferr := db.Campaign(context.WithoutCancel(ctx), rec.ID); ferr == nil {
			if werr := writeCampaignStatus(g, rec); err == nil {
				err = werr
			}
		}
	}
	return campaignError(err)
}

// planConfigs are the configurations of the attribution plan of kind for
// the kernel of snap (attribute.MakePlan, then Plan.Select), each one's
// expected vulnerability files checked by config.Verify at its boot; what
// the plan leaves out is said on stderr.
func planConfigs(g *Globals, snap *sysinfo.Snapshot, kind string) ([]config.Config, error) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return nil, err
	}
	p, err := attribute.MakePlan(snap, kb)
	if err != nil {
		return nil, err
	}
	sel, err := p.Select(kind)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	var names []string
	for _, c := range sel.Configs {
		names = append(names, c.Name)
	}
	g.notice("plan %s for kernel %s: %d configurations: %s", kind, p.Kernel, len(names), strings.Join(names, ", "))
	for _, s := range sel.Skipped {
		g.notice("  not booted: %s", s)
	}
	return sel.Configs, nil
}

// campaignError gives the campaign's errors their exit codes.
func campaignError(err error) error {
	var active *store.ActiveCampaignError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &active), errors.Is(err, campaign.ErrPlan), errors.Is(err, config.ErrConfig):
		return exit.Wrap(exit.Usage, err)
	}
	return err
}

func runCampaignStatus(ctx context.Context, g *Globals, ref string) error {
	if err := checkFormat(g, "text", "json"); err != nil {
		return err
	}
	db, rec, err := findCampaign(ctx, g, ref)
	if err != nil {
		return err
	}
	defer db.Close()
	return writeCampaignStatus(g, rec)
}

// findCampaign opens the store and finds the campaign ref names (the
// newest when ref is empty); the caller closes db.
func findCampaign(ctx context.Context, g *Globals, ref string) (*store.DB, *store.Campaign, error) {
	db, err := openStore(ctx, g, false)
	if errors.Is(err, store.ErrNoDatabase) {
		return nil, nil, exit.Wrap(exit.Runtime, fmt.Errorf("no campaign: %v; start one with 'sectax campaign start'", err))
	}
	if err != nil {
		return nil, nil, err
	}
	rec, err := db.FindCampaign(ctx, ref)
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
	release, err := g.measureLock(false)
	if err != nil {
		return err
	}
	defer release()
	db, err := openStore(ctx, g, false)
	if errors.Is(err, store.ErrNoDatabase) {
		return exit.Wrap(exit.Runtime, fmt.Errorf("nothing to resume: %v", err))
	}
	if err != nil {
		return err
	}
	defer db.Close()
	e, err := campaignEngine(g, db)
	if err != nil {
		return err
	}
	rec, err := e.Resume(ctx)
	if errors.Is(err, store.ErrNoCampaign) || errors.Is(err, campaign.ErrNotRunning) {
		return exit.Wrap(exit.Runtime, err)
	}
	if rec != nil && g.Format != "json" {
		if rec, ferr := db.Campaign(context.WithoutCancel(ctx), rec.ID); ferr == nil {
			g.notice("%s", statusLine(rec))
		}
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
		return campaignRefError(err)
	}
	if rec, ferr := db.Campaign(context.WithoutCancel(ctx), rec.ID); ferr == nil {
		if werr := writeCampaignStatus(g, rec); err == nil {
			err = werr
		}
	}
	return err
}

// runCampaignReport compares the runs of the campaign's configurations:
// two pairwise, three or more each against the first (compare's
// multi-side report). Each side holds one run per boot, so the boot is the
// unit of the comparison.
func runCampaignReport(ctx context.Context, g *Globals, ref string, o *campaignOpts) error {
	if err := report.ComparisonFormats.Check(g.Format); err != nil {
		return err
	}
	if err := stats.CheckAlpha(o.alpha); err != nil {
		return usagef("--alpha: %v", err)
	}
	db, rec, err := findCampaign(ctx, g, ref)
	if err != nil {
		return err
	}
	defer db.Close()
	configs, err := campaign.Configs(rec)
	if err != nil {
		return err
	}
	sides, err := campaignSides(ctx, db, rec, configs)
	if err != nil {
		return err
	}
	// Every configuration against the first (on, normally), one Holm
	// family across them, in the layout of 'sectax compare'.
	return writeComparison(ctx, g, sides, o.alpha, "")
}

// campaignStatus is the JSON of 'sectax campaign status'.
type campaignStatus struct {
	ID      string    `json:"id"`
	State   string    `json:"state"`
	Via     string    `json:"via"`
	Labels  []string  `json:"labels"`
	Seed    int64     `json:"seed"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Step is the step the campaign is at (1-based; steps+1 when done).
	Step    int    `json:"step"`
	Steps   int    `json:"steps"`
	Message string `json:"message"`
	// NextBoot is what the next boot must be (absent when none is due).
	NextBoot *nextBoot `json:"next_boot,omitempty"`
	// Resume says how the campaign continues after a boot.
	Resume           string             `json:"resume,omitempty"`
	LastVerification *stepVerification  `json:"last_verification,omitempty"`
	Plan             []campaignStepJSON `json:"plan"`
	// Changed is what the campaign changed and has not put back.
	Changed      []campaign.Change `json:"changed"`
	RestoreError string            `json:"restore_error,omitempty"`
}

type nextBoot struct {
	Config  string `json:"config"`
	Boot    int    `json:"boot"`
	Cmdline string `json:"cmdline"`
}

type stepVerification struct {
	Step         int               `json:"step"`
	Config       string            `json:"config"`
	Verification *run.Verification `json:"verification"`
}

type campaignStepJSON struct {
	Step      int     `json:"step"`
	Config    string  `json:"config"`
	Boot      int     `json:"boot"`
	Status    string  `json:"status"`
	Attempts  int     `json:"attempts"`
	BootID    string  `json:"boot_id,omitempty"`
	RunID     string  `json:"run_id,omitempty"`
	Quiet     string  `json:"quiet,omitempty"`
	QuietWait float64 `json:"quiet_wait_s,omitempty"`
}

func campaignStatusOf(rec *store.Campaign) campaignStatus {
	st := campaignStatus{ID: rec.ID, State: rec.State, Via: rec.Via, Seed: rec.Seed, Created: rec.Created, Updated: rec.Updated,
		Step: rec.Next + 1, Steps: len(rec.Steps), Message: rec.Message, RestoreError: rec.RestoreError, Plan: []campaignStepJSON{}}
	configs, _ := campaign.Configs(rec)
	for _, c := range configs {
		st.Labels = append(st.Labels, rec.Label+"-"+c.Name)
	}
	opts, _ := campaign.StoredOptions(rec)
	if rec.State == campaign.Running {
		st.Resume = opts.Resume
		if opts.Resume == "by hand" {
			st.Resume = "by hand: " + campaign.ResumeCommand(opts)
		}
	}
	st.Changed, _ = campaign.Changes(rec)
	if st.Changed == nil {
		st.Changed = []campaign.Change{}
	}
	for i := range st.Changed {
		st.Changed[i].Original = nil // the saved bytes are not for people
	}
	if rec.State == campaign.Running && rec.Next < len(rec.Steps) {
		s := rec.Steps[rec.Next]
		if c, ok := config.Find(configs, s.Config); ok {
			st.NextBoot = &nextBoot{Config: s.Config, Boot: s.Boot, Cmdline: c.Cmdline(rec.BaseCmdline, configs)}
		}
	}
	for _, s := range rec.Steps {
		st.Plan = append(st.Plan, campaignStepJSON{Step: s.Index + 1, Config: s.Config, Boot: s.Boot, Status: s.Status,
			Attempts: s.Attempts, BootID: s.BootID, RunID: s.RunID, Quiet: s.Quiet, QuietWait: s.QuietWait.Seconds()})
		if s.Verification != nil {
			st.LastVerification = &stepVerification{Step: s.Index + 1, Config: s.Config, Verification: s.Verification}
		}
	}
	return st
}

func writeCampaignStatus(g *Globals, rec *store.Campaign) error {
	w, finish, err := g.output()
	if err != nil {
		return err
	}
	st := campaignStatusOf(rec)
	if g.Format == "json" {
		return finish(writeJSON(w, st))
	}
	return finish(writeCampaignText(w, rec, st))
}

// statusLine is the one-line state of a campaign.
func statusLine(rec *store.Campaign) string {
	if rec.State == campaign.Running {
		return fmt.Sprintf("campaign %s: step %d of %d: %s", rec.ID, min(rec.Next+1, len(rec.Steps)), len(rec.Steps), rec.Message)
	}
	return fmt.Sprintf("campaign %s: %s: %s", rec.ID, rec.State, rec.Message)
}

func writeCampaignText(w io.Writer, rec *store.Campaign, st campaignStatus) error {
	var b strings.Builder
	fmt.Fprintf(&b, "campaign %s (via %s): %s\n", rec.ID, rec.Via, rec.State)
	if rec.State == campaign.Running {
		fmt.Fprintf(&b, "step %d of %d: %s\n", min(st.Step, st.Steps), st.Steps, rec.Message)
	} else {
		fmt.Fprintf(&b, "%s\n", rec.Message)
	}
	if st.NextBoot != nil {
		fmt.Fprintf(&b, "next boot: %s (boot %d), kernel command line: %s\n", st.NextBoot.Config, st.NextBoot.Boot, quotedOrEmpty(st.NextBoot.Cmdline))
	}
	if st.Resume != "" {
		fmt.Fprintf(&b, "resumes after the boot: %s\n", st.Resume)
	}
	if v := st.LastVerification; v != nil {
		if v.Verification.OK {
			fmt.Fprintf(&b, "last verification: step %d (%s) verified: boot %s, command line %s\n", v.Step, v.Config, v.Verification.BootID, quotedOrEmpty(v.Verification.Cmdline))
		} else {
			fmt.Fprintf(&b, "last verification: step %d (%s) did NOT verify (boot %s):\n", v.Step, v.Config, v.Verification.BootID)
			for _, r := range v.Verification.Reasons {
				fmt.Fprintf(&b, "  - %s\n", r)
			}
		}
	}
	fmt.Fprintf(&b, "labels: %s (seed %d)\n", strings.Join(st.Labels, ", "), rec.Seed)
	fmt.Fprintf(&b, "plan:\n")
	for _, s := range st.Plan {
		line := fmt.Sprintf("  %2d  %-10s boot %d  %-9s", s.Step, s.Config, s.Boot, s.Status)
		if s.Attempts > 1 {
			line += fmt.Sprintf(" (%d boots)", s.Attempts)
		}
		if s.RunID != "" {
			line += "  run " + s.RunID
		}
		if s.Quiet != "" {
			line += fmt.Sprintf("  quiet start: %s after %.1f s", s.Quiet, s.QuietWait)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	switch {
	case len(st.Changed) > 0 && rec.State == campaign.Running:
		fmt.Fprintf(&b, "changed on this system (put back at the end, or by 'sectax campaign abort'):\n")
	case len(st.Changed) > 0:
		fmt.Fprintf(&b, "NOT put back (restore failed: %s); fix it, then run 'sectax campaign abort %s' again:\n", rec.RestoreError, rec.ID)
	}
	for _, c := range st.Changed {
		fmt.Fprintf(&b, "  - %s\n", c)
	}
	if len(st.Changed) == 0 && rec.State != campaign.Running {
		b.WriteString("everything the campaign changed is put back\n")
		if rec.Via == "wsl" {
			b.WriteString("(WSL still runs the last step's kernel command line until it restarts: wsl --shutdown)\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func quotedOrEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return `"" (nothing added)`
	}
	return s
}

// labelRE is what a label prefix may hold.
var labelRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
