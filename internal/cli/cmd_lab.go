package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
)

// labOptions are the flags of `sectax lab`.
type labOptions struct {
	run       runOptions
	kernels   []string
	modules   string
	configs   []string
	plan      string
	onlyCfg   []string
	boots     int
	prefix    string
	accel     string
	cpu       string
	memory    string
	smp       int
	qemu      string
	vmTimeout time.Duration
	handshake time.Duration
	planSeed  int64
	targetCI  float64
	budget    time.Duration
	// adaptStopped are the configurations adaptive repetition stopped.
	adaptStopped map[string]bool
}

func newLabCmd(g *Globals) *cobra.Command {
	o := &labOptions{}
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Boot kernels under QEMU once per configuration, measure inside, compare",
		Long: `Run the study's experiment without touching this machine's boot: boot each
kernel image under QEMU once per configuration (on: the default command line;
off: mitigations=off; NAME=PARAMS: any parameters), N times each in a
shuffled interleaved order, run the suite inside each guest, store every run
(labelled PREFIX-KERNEL-CONFIG) and print the matrix: per kernel the tax of
each configuration against on, and per configuration the change from one
kernel to the next.

The guest needs nothing but the kernel: sectax builds an initramfs with
itself as /init (it must be a static binary: CGO_ENABLED=0). Before
measuring, each guest verifies its boot (a new boot, exactly the
configuration's parameters on the command line, the vulnerability files the
parameters turn off no longer mitigated); a boot that does not verify is
never measured. The command lines of two configurations differ by exactly
their parameters; console=ttyS0 panic=-1 no_timer_check are on every boot.

The accelerator is part of the result. Under kvm (-cpu host) the guest's
kernel picks mitigations for this machine's CPU and the figures estimate what
they cost in a guest. Under tcg (an emulated Skylake-Client-v1) only the
kernel's mitigation decisions are real: timings are emulator artefacts.
--accel auto uses kvm when /dev/kvm works and falls back to tcg with a
warning when it does not (a /dev/kvm of software nested virtualization never
reaches /init).`,
		Example: `  sectax lab --suite quick
  sectax lab --kernel /boot/vmlinuz-6.1.0-57-amd64 --config on --config off=mitigations=off --boots 3
  sectax lab --kernel wsl2/bzImage --kernel wsl3/bzImage --accel kvm --suite study
  sectax lab --accel tcg --only syscall-basic,sched-pipe --runs 3
  sectax lab --plan leave-one-out --accel kvm --suite quick   # each mitigation off alone`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLab(cmd.Context(), g, o) },
	}
	o.run.addSelectionFlags(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&o.kernels, "kernel", nil, "kernel `IMAGE` to boot (repeatable; default /boot/vmlinuz-$(uname -r))")
	f.StringVar(&o.modules, "modules", "", "the kernel's modules `DIR` (default /lib/modules/RELEASE, RELEASE read from the image)")
	f.StringArrayVar(&o.configs, "config", nil, "configuration: on, off, or NAME=PARAMS such as off=mitigations=off (repeatable; default on and off)")
	f.StringVar(&o.plan, "plan", "", "take the configurations from the guest kernel's attribution plan of `KIND`: leave-one-out|cumulative|study (a first probe boot reads the guest's vulnerability files; one --kernel; not with --config)")
	f.StringSliceVar(&o.onlyCfg, "only-config", nil, "with --plan: boot only these `NAMES` of the plan's configurations (on always)")
	f.IntVar(&o.boots, "boots", 2, "boots per kernel and configuration (the boot is the unit of the comparison)")
	f.StringVar(&o.prefix, "label", "lab", "label `PREFIX` of the runs: PREFIX-KERNEL-CONFIG")
	f.StringVar(&o.accel, "accel", lab.AccelAuto, "QEMU accelerator: kvm|tcg|auto")
	f.StringVar(&o.cpu, "cpu", "", "QEMU CPU `MODEL` (default host under kvm, "+lab.TCGCPU+" under tcg)")
	f.StringVar(&o.memory, "memory", "1G", "guest memory (e.g. 1G, 512M)")
	f.IntVar(&o.smp, "smp", 2, "guest vCPUs")
	f.StringVar(&o.qemu, "qemu", "qemu-system-x86_64", "QEMU `BINARY`")
	f.DurationVar(&o.vmTimeout, "vm-timeout", 2*time.Hour, "a boot running longer than this is stopped")
	f.DurationVar(&o.handshake, "handshake", 0, "longest wait from QEMU's start to /init's handshake (default 1m under kvm, 5m under tcg)")
	f.Float64Var(&o.targetCI, "target-ci", 0, "adaptive repetition: after --boots, keep adding boots until the interval of each configuration's change against on is at most ±`PCT` points (needs --budget)")
	f.DurationVar(&o.budget, "budget", 0, "with --target-ci: the longest the whole lab may run; no added round starts that would overrun it (the --boots rounds always run)")
	f.Int64Var(&o.planSeed, "plan-seed", 0, "seed of the shuffled boot order (default: random, recorded in every run)")
	return cmd
}

// labBoot is one kernel of the plan, ready to boot.
type labKernel struct {
	name       string
	image      lab.KernelImage
	modulesDir string
	modules    []lab.Module
}

func runLab(ctx context.Context, g *Globals, o *labOptions) error {
	began := time.Now()
	if o.targetCI != 0 || o.budget != 0 {
		if o.targetCI == 0 {
			return usagef("--budget bounds adaptive repetition: give --target-ci PCT too")
		}
		if err := (lab.Adaptive{TargetPct: o.targetCI, Budget: o.budget}).Check(); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		o.adaptStopped = map[string]bool{}
	}
	if err := lab.CheckBoots(o.boots); err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	if o.smp < 1 || o.smp > 64 {
		return usagef("--smp %d: give 1 to 64 vCPUs", o.smp)
	}
	if o.run.cpus != "" {
		return usagef("--cpus does not apply to sectax lab: the guest's vCPUs are --smp")
	}
	mem, err := lab.ParseMemory(o.memory)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	switch o.accel {
	case lab.AccelKVM, lab.AccelTCG, lab.AccelAuto:
	default:
		return usagef("--accel %q is not accepted (accepted: kvm, tcg, auto)", o.accel)
	}
	var configs []config.Config
	switch {
	case o.plan == "":
		if len(o.onlyCfg) > 0 {
			return usagef("--only-config selects among the configurations of --plan; without --plan, give the configurations with --config")
		}
		if configs, err = config.ParseAll(o.configs); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		if _, ok := config.Find(configs, "on"); !ok {
			return usagef("--config: the plan needs on, the configuration the others are compared with")
		}
	case len(o.configs) > 0:
		return usagef("--plan and --config are mutually exclusive: --plan %s takes the configurations from the guest kernel's attribution plan; give one or the other", o.plan)
	case !slices.Contains(attribute.Selections, o.plan):
		return usagef("--plan %q is not accepted (accepted: %s)", o.plan, strings.Join(attribute.Selections, ", "))
	case len(o.kernels) > 1:
		return usagef("--plan takes one --kernel: each kernel has its own plan (its own active mitigations); run sectax lab --plan once per kernel")
	}
	// The selection is checked here, with the same rules the guest uses.
	if _, err := makePlan(ctx, g, &o.run, []string{"native"}); err != nil {
		return err
	}
	removeStaleTemps(g)
	kernels, err := labKernels(ctx, o)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := lab.CheckStatic(exe); err != nil {
		return err
	}
	qemuVersion, err := lab.QEMUVersion(ctx, o.qemu)
	if err != nil {
		return err
	}
	accel := o.accel
	if accel != lab.AccelTCG {
		if kerr := lab.KVMUsable(); kerr != nil {
			if accel == lab.AccelKVM {
				return fmt.Errorf("--accel kvm: %v; use --accel tcg (emulated: timings are not hardware costs)", kerr)
			}
			g.notice("warning: %v: falling back to --accel tcg (emulated: timings are not hardware costs)", kerr)
			accel = lab.AccelTCG
		} else if accel == lab.AccelAuto {
			accel = lab.AccelKVM
		}
	}
	host, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	if o.plan != "" {
		snap, probed, err := labProbe(ctx, g, o, kernels[0], exe, mem, accel)
		if err != nil {
			return err
		}
		accel = probed
		if configs, err = planConfigs(g, snap, o.plan); err != nil {
			return err
		}
		if configs, err = onlyConfigs(configs, o.onlyCfg); err != nil {
			return err
		}
	}
	for _, k := range kernels {
		if err := lab.CheckConfigs(k.image, configs); err != nil {
			return err
		}
	}
	seed := o.planSeed
	if seed == 0 {
		seed = randomSeed()
	}
	names := make([]string, len(kernels))
	for i, k := range kernels {
		names[i] = k.name
	}
	steps := lab.MakePlan(o.prefix, names, configs, o.boots, seed)

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

	ls := &labSession{g: g, o: o, db: db, exe: exe, configs: configs, mem: mem, qemuVersion: qemuVersion,
		hostKernel: host.Kernel.Release, hostCPU: host.CPU.ModelName, seed: seed, total: len(steps)}
	g.notice("lab: %d kernel(s) × %d configurations × %d boots = %d boots in a shuffled order (plan seed %d), accel %s",
		len(kernels), len(configs), o.boots, len(steps), seed, accel)
	var seen []string
	var spent time.Duration
	start := time.Now()
	var adaptiveNotes []string
	booted := map[string]int{}
	for i := 0; i < len(steps); i++ {
		st := steps[i]
		k := kernels[st.Kernel]
		eta := "ETA --:--"
		if i > 0 {
			eta = "ETA " + clock(spent/time.Duration(i)*time.Duration(len(steps)-i))
		}
		g.notice("boot %d of %d: %s (%s elapsed, %s)", i+1, len(steps), st.Label, clock(time.Since(start)), eta)
		t0 := time.Now()
		var r *run.Run
		for {
			r, err = ls.boot(ctx, k, st, seen, accel)
			if err != nil && o.accel == lab.AccelAuto && accel == lab.AccelKVM && i == 0 &&
				(errors.Is(err, lab.ErrAccel) || errors.Is(err, lab.ErrNoHandshake)) {
				g.notice("warning: %v; falling back to --accel tcg (emulated: timings are not hardware costs)", err)
				accel = lab.AccelTCG
				continue
			}
			break
		}
		if err != nil {
			return bootError(ctx, err, i, len(steps), st.Label)
		}
		spent += time.Since(t0)
		seen = append(seen, r.Env.BootID)
		booted[st.Config.Name]++
		g.notice("stored run %s (%s, boot to /init %.1fs, %s)", r.ID, st.Label, r.Lab.BootToInitS, clock(time.Since(t0)))
		if i == len(steps)-1 && o.targetCI > 0 {
			round, notes, err := labAdaptRound(ctx, g, db, o, names, configs, booted, time.Since(began), spent/time.Duration(i+1), seed, st.Round+1)
			if err != nil {
				return err
			}
			adaptiveNotes = append(adaptiveNotes, notes...)
			for j := range round {
				round[j].Index = len(steps) + j + 1
			}
			steps = append(steps, round...)
			ls.total = len(steps)
		}
	}
	return labMatrix(ctx, g, db, o.prefix, names, configs, adaptiveNotes...)
}

// adaptiveNote says what stopped adaptive repetition of a configuration
// (lab and campaign alike).
func adaptiveNote(name, base string, width float64, n int, why string, ad lab.Adaptive, elapsed time.Duration) string {
	w := "no interval with the boot as the unit yet"
	if !math.IsInf(width, 1) {
		w = fmt.Sprintf("interval ±%.1f points", width)
		if width >= 10 {
			w = fmt.Sprintf("interval ±%.0f points", width)
		}
	}
	boots := "boots"
	if n == 1 {
		boots = "boot"
	}
	line := fmt.Sprintf("adaptive: %s against %s: %s after %d %s: ", name, base, w, n, boots)
	if why == lab.StopTarget {
		return line + fmt.Sprintf("stopped by the target (--target-ci %g)", ad.TargetPct)
	}
	return line + fmt.Sprintf("stopped by the budget (--budget %s, %s spent)", ad.Budget, clock(elapsed))
}

// bootWidth is how precisely rep knows its differences with the boot as
// the unit (+Inf while a side holds one boot: its repetitions tell nothing
// of boot-to-boot variation).
func bootWidth(rep *compare.Report) float64 {
	if rep.A.Unit != "boot" || rep.B.Unit != "boot" {
		return math.Inf(1)
	}
	return rep.WidestIntervalPct()
}

// labAdaptRound is adaptive repetition after the boots so far: each
// configuration not yet stopped is compared with on (per kernel, the
// widest interval counts), and the next round boots on and those whose
// interval is still wider than --target-ci, if it fits in --budget. It
// returns the round (empty: done) and a line for each configuration that
// stopped, saying what stopped it.
func labAdaptRound(ctx context.Context, g *Globals, db *store.DB, o *labOptions, kernels []string, configs []config.Config,
	booted map[string]int, elapsed, perBoot time.Duration, seed int64, round int) ([]lab.Step, []string, error) {
	ad := lab.Adaptive{TargetPct: o.targetCI, Budget: o.budget}
	widths := map[string]float64{}
	for _, c := range configs[1:] {
		if o.adaptStopped[c.Name] {
			continue
		}
		widths[c.Name] = 0
		for _, k := range kernels {
			a, err := sideOf(ctx, g, &db, lab.Label(o.prefix, k, configs[0].Name))
			if err != nil {
				return nil, nil, err
			}
			b, err := sideOf(ctx, g, &db, lab.Label(o.prefix, k, c.Name))
			if err != nil {
				return nil, nil, err
			}
			rep, err := compare.Compare(a, b, compare.Options{})
			if err != nil {
				return nil, nil, err
			}
			widths[c.Name] = math.Max(widths[c.Name], bootWidth(rep))
		}
	}
	more, stopped := ad.Round(widths, elapsed, perBoot*time.Duration(len(kernels)))
	var notes []string
	for _, c := range configs[1:] {
		why, ok := stopped[c.Name]
		if !ok {
			continue
		}
		o.adaptStopped[c.Name] = true
		line := adaptiveNote(c.Name, configs[0].Name, widths[c.Name], booted[c.Name]/len(kernels), why, ad, elapsed)
		g.notice("%s", line)
		notes = append(notes, line)
	}
	if len(more) == 0 {
		return nil, notes, nil
	}
	sel := []config.Config{configs[0]}
	for _, name := range more {
		c, _ := config.Find(configs, name)
		sel = append(sel, c)
	}
	g.notice("adaptive: round %d boots %s again (interval wider than ±%g points)", round, strings.Join(append([]string{configs[0].Name}, more...), ", "), o.targetCI)
	steps := lab.MakePlan(o.prefix, kernels, sel, 1, seed+int64(round))
	for i := range steps {
		steps[i].Round = round
	}
	return steps, notes, nil
}

// labProbe is the probe boot of --plan: the kernel booted with the
// default command line (configuration on) runs the snapshot task, so that
// the plan is made from the guest kernel's own vulnerability files. It
// returns the snapshot and the accelerator (--accel auto falls back to tcg
// here when kvm never reaches /init).
func labProbe(ctx context.Context, g *Globals, o *labOptions, k labKernel, exe string, mem int, accel string) (*sysinfo.Snapshot, string, error) {
	for {
		cpu := o.cpu
		if cpu == "" {
			cpu = lab.DefaultCPU(accel)
		}
		hs := o.handshake
		if hs <= 0 {
			hs = time.Minute
			if accel == lab.AccelTCG {
				hs = 5 * time.Minute
			}
		}
		g.notice("probe boot: %s with the default command line, to plan %s from its vulnerability files", k.name, o.plan)
		res, err := lab.Boot(ctx, lab.BootOptions{
			QEMU: lab.QEMU{Binary: o.qemu, Accel: accel, CPU: cpu, MemoryMiB: mem, SMP: o.smp, Kernel: k.image.Path,
				Append: config.On.Cmdline(lab.LabParams, nil)},
			Initramfs: &lab.InitramfsOptions{Init: exe, ModulesDir: k.modulesDir, Modules: k.modules,
				Task: lab.Task{Name: labSnapshotTask}},
			Handshake: hs, Timeout: o.vmTimeout,
			OnFrame: func(f lab.Frame) {
				if f.Kind == lab.KindLog {
					g.notice("  guest: %s", f.Payload)
				}
			},
		})
		if err != nil && o.accel == lab.AccelAuto && accel == lab.AccelKVM && (errors.Is(err, lab.ErrAccel) || errors.Is(err, lab.ErrNoHandshake)) {
			g.notice("warning: %v; falling back to --accel tcg (emulated: timings are not hardware costs)", err)
			accel = lab.AccelTCG
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, accel, exit.Wrap(exit.Interrupted, errors.New("interrupted during the probe boot of --plan"))
			}
			return nil, accel, fmt.Errorf("probe boot of --plan: %w", err)
		}
		var snap sysinfo.Snapshot
		if err := json.Unmarshal(res.Result, &snap); err != nil {
			return nil, accel, fmt.Errorf("probe boot of --plan: the guest's snapshot: %w", err)
		}
		return &snap, accel, nil
	}
}

// onlyConfigs keeps on and the configurations named by --only-config.
func onlyConfigs(configs []config.Config, only []string) ([]config.Config, error) {
	if len(only) == 0 {
		return configs, nil
	}
	var names []string
	for _, c := range configs {
		names = append(names, c.Name)
	}
	out := []config.Config{configs[0]}
	for _, n := range only {
		c, ok := config.Find(configs, n)
		if !ok {
			return nil, usagef("--only-config %s: not a configuration of this plan (it has %s)", n, strings.Join(names, ", "))
		}
		if c.Name != out[0].Name && !slices.ContainsFunc(out, func(x config.Config) bool { return x.Name == c.Name }) {
			out = append(out, c)
		}
	}
	return out, nil
}

// labKernels reads the kernel images and finds their modules.
func labKernels(ctx context.Context, o *labOptions) ([]labKernel, error) {
	paths := o.kernels
	if len(paths) == 0 {
		var u unix.Utsname
		unix.Uname(&u)
		p := "/boot/vmlinuz-" + unix.ByteSliceToString(u.Release[:])
		if _, err := os.Stat(p); err != nil {
			if found, _ := filepath.Glob("/boot/vmlinuz-*"); len(found) > 0 {
				return nil, exit.Wrap(exit.Usage, fmt.Errorf("no kernel image of the running system at %s; this machine has %s: pass it with --kernel", p, strings.Join(found, ", ")))
			}
			return nil, fmt.Errorf("no kernel image of the running system at %s: install one (Debian: apt-get install linux-image-amd64) and pass --kernel /boot/vmlinuz-VERSION", p)
		}
		paths = []string{p}
	}
	var images []lab.KernelImage
	for _, p := range paths {
		k, err := lab.ReadKernelContext(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("--kernel: %w", err)
		}
		images = append(images, k)
	}
	names := lab.KernelNames(images)
	var out []labKernel
	for i, img := range images {
		k := labKernel{name: names[i], image: img, modulesDir: o.modules}
		if k.modulesDir == "" && img.Release != "" {
			k.modulesDir = filepath.Join("/lib/modules", img.Release)
		}
		if k.modulesDir != "" {
			if _, err := os.Stat(k.modulesDir); err == nil {
				mods, err := lab.ResolveModules(k.modulesDir, lab.ChannelModules)
				if err != nil {
					return nil, err
				}
				k.modules = mods
			} else if o.modules != "" {
				return nil, usagef("--modules %s: %v", o.modules, err)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

// labSession is what every boot of a plan shares.
type labSession struct {
	g                                *Globals
	o                                *labOptions
	db                               *store.DB
	exe                              string
	configs                          []config.Config
	mem                              int
	qemuVersion, hostKernel, hostCPU string
	seed                             int64
	total                            int
}

// boot boots one step, imports its run and returns it.
func (ls *labSession) boot(ctx context.Context, k labKernel, st lab.Step, seen []string, accel string) (*run.Run, error) {
	g, o, configs, mem := ls.g, ls.o, ls.configs, ls.mem
	cpu := o.cpu
	if cpu == "" {
		cpu = lab.DefaultCPU(accel)
	}
	in := lab.MeasureInput{
		RunID: g.deps.NewRunID(), Label: st.Label, Config: st.Config, Plan: configs, SeenBootIDs: seen,
		Suite: o.run.suite, Only: o.run.only, Skip: o.run.skip, Params: o.run.params, Runs: o.run.runs,
		Warmup: o.run.warmup, Seed: o.run.seed, TimeoutS: o.run.timeout.Seconds(),
		Cmdline: st.Config.Cmdline(lab.LabParams, configs), Release: k.image.Release,
	}
	if in.Seed == 0 {
		in.Seed = randomSeed()
	}
	input, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	hs := o.handshake
	if hs <= 0 {
		hs = time.Minute
		if accel == lab.AccelTCG {
			hs = 5 * time.Minute
		}
	}
	res, err := lab.Boot(ctx, lab.BootOptions{
		QEMU: lab.QEMU{Binary: o.qemu, Accel: accel, CPU: cpu, MemoryMiB: mem, SMP: o.smp, Kernel: k.image.Path,
			Append: in.Cmdline},
		Initramfs: &lab.InitramfsOptions{Init: ls.exe, ModulesDir: k.modulesDir, Modules: k.modules,
			Task: lab.Task{Name: lab.MeasureTask, Input: input}},
		Handshake: hs, Timeout: o.vmTimeout,
		OnFrame: func(f lab.Frame) {
			if f.Kind == lab.KindLog {
				g.notice("  guest: %s", f.Payload)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	doc, err := lab.ImportRun(res.Result, in, &run.Lab{
		QEMUVersion: ls.qemuVersion, Accel: accel, CPUModel: cpu, MemoryMiB: mem, VCPUs: o.smp,
		HostKernel: ls.hostKernel, HostCPU: ls.hostCPU, Kernel: k.name, KernelImage: k.image.Path, KernelSHA256: k.image.SHA256,
		LabParams: lab.LabParams, Boot: st.Index, Boots: ls.total, PlanSeed: ls.seed,
		BootToInitS: res.ToHello.Seconds(), GuestUptimeAtInitS: res.Hello.UptimeS, VMWallS: res.Wall.Seconds(), QEMUPeakRSSKiB: res.PeakRSSKiB,
	})
	if err != nil {
		return nil, err
	}
	if _, err := ls.db.Import(ctx, []store.Doc{doc}); err != nil {
		return nil, err
	}
	return doc.Run, nil
}

// bootError is the error of boot i (from 0) of n, labelled label, that
// failed with err: interrupted when ctx was cancelled, unmet when the guest
// refused the boot (it did not verify), else a runtime error.
func bootError(ctx context.Context, err error, i, n int, label string) error {
	if ctx.Err() != nil {
		return exit.Wrap(exit.Interrupted, fmt.Errorf("interrupted during boot %d of %d (%s); finished boots stay stored: %d", i+1, n, label, i))
	}
	if errors.Is(err, lab.ErrNotVerified) {
		return exit.Wrap(exit.Unmet, fmt.Errorf("boot %d of %d (%s): %v (finished boots stay stored: %d)", i+1, n, label, err, i))
	}
	return fmt.Errorf("boot %d of %d (%s): %w (finished boots stay stored: %d)", i+1, n, label, err, i)
}
