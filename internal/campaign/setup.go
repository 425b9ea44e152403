package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sectax/sectax/internal/adaptive"
	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sides"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/wslconfig"
)

// Vias are the reboot mechanisms --via accepts.
var Vias = []string{"kexec", "wsl", "manual"}

// Deps are the parts of the outside world a campaign reboots with; the
// zero value is the real system.
type Deps struct {
	// Mechanism, when set, replaces every reboot mechanism (tests: a fake
	// machine).
	Mechanism Mechanism
	// Exec runs systemctl and the WSL interop programs
	// (campaign.Exec when nil).
	Exec func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Exe is the sectax binary the resume unit and script run
	// (os.Executable when "").
	Exe string
	// Settle judges the quiet start (the default when nil).
	Settle *Settler
	// Getenv reads $WSL_DISTRO_NAME (os.Getenv when nil).
	Getenv func(string) string
	// WSL finds the .wslconfig of --via wsl (its Root is the campaign's).
	WSL wslconfig.Locator
}

// CheckRoot refuses a campaign that would measure this machine under
// another tree's environment: with --root DIR, resume would verify DIR's
// boot but measure this machine and store the run with DIR's environment
// (as 'sectax run' refuses to). A test's fake machine (Mechanism) boots
// the tree itself, so there the tree is the machine.
func (d Deps) CheckRoot(root, verb string) error {
	if filepath.Clean(root) == "/" || d.Mechanism != nil {
		return nil
	}
	return exit.Usagef("--root %s describes another machine but campaign %s measures this one, so its runs would be stored with the wrong environment: drop --root (--dry-run shows a plan for that tree)", root, verb)
}

func (d Deps) exec() func(ctx context.Context, name string, args ...string) ([]byte, error) {
	if d.Exec != nil {
		return d.Exec
	}
	return func(ctx context.Context, name string, args ...string) ([]byte, error) {
		return Exec(ctx, name, args...)
	}
}

// Setup is what an engine on a machine is made of.
type Setup struct {
	DB *store.DB
	// Store is the store DB was opened from (Engine.Store).
	Store store.Ref
	Root  string
	Deps  Deps
	// Now and NewID stamp and name (nil: the clock, random ids).
	Now   func() time.Time
	NewID func() string
	// Out is where notes, progress and the measured runs go (Engine.Out).
	Out measure.Printer
	// Runs is how the steps' runs are measured and shown.
	Runs Runs
}

// NewEngine is the engine of s: the mechanisms by --via name (kexec, wsl,
// manual; Deps.Mechanism replaces them all), .wslconfig's atomic writer
// for restoring, and adaptive repetition (adaptive.Policy) for Extend.
func NewEngine(s Setup) (*Engine, error) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return nil, err
	}
	d := s.Deps
	host := &Host{Root: s.Root, Exec: d.exec(), Settle: d.Settle}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	db := s.DB
	return &Engine{
		DB: db, Store: s.Store, Host: host, KB: kb, Now: now, NewID: s.NewID, Out: s.Out, Runs: s.Runs,
		Mechanisms: func(name string, o Options) (Mechanism, error) {
			if d.Mechanism != nil {
				return d.Mechanism, nil
			}
			switch name {
			case "kexec":
				return &Kexec{Kernel: o.Kernel, Initrd: o.Initrd, HostSet: o.HostSet, Systemd: host.Systemd(), Exec: d.exec()}, nil
			case "wsl":
				return &WSL{Path: o.WSLConfig, Distro: o.Distro, Exec: d.exec(), Now: now}, nil
			case "manual":
				return Manual{}, nil
			}
			return nil, exit.Choose("--via", name, Vias...)
		},
		WriteFile: func(path string, old, data []byte) error {
			_, err := wslconfig.WriteFile(path, old, data, now())
			return err
		},
		Extend: func(ctx context.Context, rec *store.Campaign, opts Options) (Extension, error) {
			return adapt(ctx, db, rec, opts, now())
		},
	}, nil
}

// adapt is adaptive repetition of a campaign whose planned boots are
// measured: each configuration is compared with the first, the boot as
// the unit, and those whose interval is still wider than the target get
// another round if it fits in the budget (from the campaign's start, at
// the cost of a boot so far). The round's boots and repetitions per boot
// are sized from the variance components and the costs measured so far
// (adaptive.Allocate: a boot costs the campaign's time per boot less its
// repetitions).
func adapt(ctx context.Context, db *store.DB, rec *store.Campaign, opts Options, now time.Time) (Extension, error) {
	configs, err := Configs(rec)
	if err != nil {
		return Extension{}, err
	}
	ss, err := Sides(ctx, db, rec, configs)
	if err != nil {
		return Extension{}, err
	}
	measured := 0
	boots := map[string]int{}
	for _, s := range rec.Steps {
		if s.Status == StepMeasured {
			measured++
			boots[s.Config]++
		}
	}
	elapsed := now.Sub(rec.Created)
	perBoot := elapsed / time.Duration(max(measured, 1))
	ad := adaptive.Policy{TargetPct: opts.TargetCI, Budget: opts.Budget}
	reports := map[string]*compare.Report{}
	var wide []*compare.Report
	var runs []*run.Run
	for _, s := range ss {
		runs = append(runs, s.Runs...)
	}
	// One comparison, the first configuration the baseline: each
	// configuration's interval against it.
	var cmp *compare.Comparison
	if len(ss) > 1 {
		if cmp, err = compare.CompareSides(ss, compare.Options{}); err != nil {
			return Extension{}, err
		}
	}
	for i, c := range configs[1:] {
		rep := cmp.Comparisons[i]
		reports[c.Name] = rep
		if adaptive.BootWidth(rep) > opts.TargetCI {
			wide = append(wide, rep)
		}
	}
	base := opts.Repetitions
	if base == 0 && len(runs) > 0 { // the suite's default
		base = runs[len(runs)-1].Repetitions
	}
	alloc, sized := adaptive.Allocate(wide, opts.TargetCI, adaptive.LevelCosts(elapsed, runs), base)
	if sized {
		if c := alloc.Costs.PerBoot(alloc.Runs); c > 0 {
			perBoot = c
		}
	}
	more, notes, err := ad.Decide(configs[0].Name, configs[1:], func(c bootconfig.Config) (float64, error) {
		return adaptive.BootWidth(reports[c.Name]), nil
	}, boots, elapsed, perBoot)
	ext := Extension{More: more, Notes: notes}
	if err != nil || len(more) == 0 || !sized {
		return ext, err
	}
	ext.Runs, ext.Sizing = alloc.Runs, alloc.String()
	ext.Boots = alloc.RoundBoots(len(more)+1, opts.Budget-elapsed, perBoot)
	return ext, nil
}

// Sides are the campaign's measured runs, one side per configuration
// (PREFIX-CONFIG), in the order of the configurations.
func Sides(ctx context.Context, db *store.DB, rec *store.Campaign, configs []bootconfig.Config) ([]compare.Side, error) {
	var out []compare.Side
	for _, c := range configs {
		var ids []string
		for _, s := range rec.Steps {
			if s.Config == c.Name && s.Status == StepMeasured {
				ids = append(ids, s.RunID)
			}
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("campaign %s has no measured boot of %s yet (%s); see 'sectax campaign status'", rec.ID, c.Name, rec.Message)
		}
		side, err := sides.Runs(ctx, db, rec.Label+"-"+c.Name, compare.KindLabel, ids)
		if err != nil {
			return nil, fmt.Errorf("campaign %s: %w", rec.ID, err)
		}
		out = append(out, side)
	}
	return out, nil
}

// Request is what `sectax campaign start` is asked: its flags.
type Request struct {
	// Configs are --config values; Plan, instead, a plan kind
	// (attribute.Selections) of this kernel's attribution plan.
	Configs []string
	Plan    string
	Boots   int
	Label   string
	// Via is the mechanism ("": wsl on WSL 2, else kexec); Kernel and
	// Initrd are kexec's, WSLConfig and Distro wsl's.
	Via                               string
	Seed                              int64
	Kernel, Initrd, WSLConfig, Distro string
	// Options size the runs (Suite, Only, Params, Runs, Warmup) and ask
	// for adaptive repetition (TargetCI, Budget).
	Options Options
	// DryRun asks for the plan only (Preview): nothing is changed, so
	// root is not needed yet.
	DryRun bool
	// RunEstimate is how long one run of the campaign's suite takes
	// (plan.Plan.Estimate, from this machine's past runs when known).
	RunEstimate plan.Estimate
}

// Check refuses flags that cannot make a campaign, before anything else.
func (r *Request) Check() error {
	if r.Options.TargetCI != 0 || r.Options.Budget != 0 {
		if r.Options.TargetCI == 0 {
			return exit.Usagef("--budget bounds adaptive repetition: give --target-ci PCT too")
		}
		if err := (adaptive.Policy{TargetPct: r.Options.TargetCI, Budget: r.Options.Budget}).Check(); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
	}
	if r.Plan == "" {
		configs, err := bootconfig.ParseAll(r.Configs)
		if err != nil {
			return err
		}
		if _, err := Schedule(configs, r.Boots, 1); err != nil {
			return err
		}
	} else if len(r.Configs) > 0 {
		return exit.Usagef("--plan and --config are mutually exclusive: --plan %s takes the configurations from this kernel's attribution plan; give one or the other", r.Plan)
	} else if err := attribute.CheckSelection(r.Plan); err != nil {
		return err
	}
	if r.Label != "" {
		if err := run.CheckLabel(r.Label); err != nil {
			return exit.Usagef("--label: %v: choose another label, e.g. --label on", err)
		}
	}
	return nil
}

// Prepare turns a checked request into the campaign to start on the
// machine of snap (under root): the configurations (from the attribution
// plan with --plan, said on out), the mechanism and its options (the
// .wslconfig of --via wsl found by d.WSL below root).
func Prepare(ctx context.Context, r *Request, snap *sysinfo.Snapshot, root string, db store.Ref, d Deps, out ui.Printer) (*StartRequest, error) {
	var configs []bootconfig.Config
	var err error
	if r.Plan == "" {
		configs, _ = bootconfig.ParseAll(r.Configs)
	} else {
		sel, kernel, err := attribute.SelectFor(snap, r.Plan)
		if err != nil {
			return nil, err
		}
		attribute.SayPlan(out, r.Plan, kernel, sel)
		configs = sel.Configs
		if _, err := Schedule(configs, r.Boots, 1); err != nil {
			return nil, err
		}
	}
	via := r.Via
	if via == "" {
		via = "kexec"
		if snap.WSL != nil {
			via = "wsl"
		}
	}
	opts := r.Options
	if d.Mechanism == nil { // a test's fake machine boots any line
		opts.HostSet = advise.HostSetBy(snap, advise.Probe(root, snap))
	}
	if opts.HostSet != "" && via == "manual" {
		return nil, exit.Usagef("--via manual asks you to boot each step's command line, but this guest's kernel command line is set by %s (no boot loader configuration here): %s, or use --via kexec", opts.HostSet, LabInstead)
	}
	opts.DB = db.Locate()
	opts.Exe = d.Exe
	if opts.Exe == "" {
		if opts.Exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("cannot tell where the sectax binary is (%v); the resume step needs it", err)
		}
	}
	switch via {
	case "kexec":
		if snap.WSL != nil && d.Mechanism == nil {
			return nil, exit.Usagef("--via kexec cannot reboot a WSL 2 guest (Windows starts its kernel); use --via wsl or --via manual")
		}
		opts.Kernel, opts.Initrd = r.Kernel, r.Initrd
		if opts.Kernel == "" {
			opts.Kernel, opts.Initrd = vm.DefaultImages("/", snap.Kernel.Release)
			if r.Initrd != "" {
				opts.Initrd = r.Initrd
			}
		}
		if os.Geteuid() != 0 && d.Mechanism == nil && !r.DryRun {
			return nil, errors.New("--via kexec needs root (kexec_file_load needs CAP_SYS_BOOT, and the resume unit goes to /etc/systemd/system): run sudo sectax campaign start …, or use --via manual")
		}
	case "wsl":
		loc := d.WSL
		loc.Root = root
		found, err := loc.Choose(ctx, r.WSLConfig)
		if err != nil {
			return nil, err
		}
		opts.WSLConfig = found.Path
		getenv := d.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		opts.Distro = r.Distro
		if opts.Distro == "" {
			opts.Distro = getenv("WSL_DISTRO_NAME")
		}
	default:
		if err := exit.Choose("--via", via, Vias...); err != nil {
			return nil, err
		}
	}
	return &StartRequest{Configs: configs, Boots: r.Boots, Seed: r.Seed, Label: r.Label, Via: via, Options: opts, Estimate: Estimate(r.RunEstimate, r.Boots*len(configs))}, nil
}
