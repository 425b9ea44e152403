package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/adaptive"
	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sides"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/tempdir"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/vm"
)

// Request is what `sectax lab` is asked: its flags.
type Request struct {
	// Kernels are the images to boot (none: the running kernel's, found
	// under Host.Root); Modules their modules directory ("": found from
	// each image's release).
	Kernels []string
	Modules string
	// Configs are --config values; Plan, instead, a plan kind
	// (attribute.Selections) read from a probe boot; OnlyConfig the
	// plan's configurations to boot (on always).
	Configs    []string
	Plan       string
	OnlyConfig []string
	// Boots per kernel and configuration; Prefix of the labels.
	Boots  int
	Prefix string
	// The virtual machine.
	Accel, CPU, Memory, QEMU string
	SMP                      int
	VMTimeout, Handshake     time.Duration
	// PlanSeed orders the boots (0: random).
	PlanSeed int64
	// Adaptive repetition (zero: none).
	Adaptive adaptive.Policy
	// Measure is the selection every guest runs (RunID, Label, Config,
	// Plan and SeenBootIDs are filled per boot).
	Measure MeasureInput
}

// Host is what the lab needs of the machine it runs on.
type Host struct {
	// Root is where the running kernel's image is looked for (--root).
	Root string
	// Exe is the static sectax binary that becomes the guests' /init.
	Exe string
	// Snapshot is this machine (the runs record its kernel and CPU).
	Snapshot *sysinfo.Snapshot
	// DB is the store the runs go to: the lab takes the measurement lock
	// beside it and opens it once the boots are planned and confirmed
	// (store.Ref.OpenMeasuring), and its stored lab runs of the suite
	// under the accelerator teach the estimate (zero: none).
	DB store.Ref
	// NewRunID names a run; NewSeed draws a seed.
	NewRunID func() string
	NewSeed  func() int64
	// Out is where the lab's notes and progress go (nil: nowhere), and
	// what confirms a lab estimated at more than measure.LongWork.
	Out ui.Printer
	// RunPlan is the plan every guest runs, as checked on the host (nil:
	// no estimate).
	RunPlan *plan.Plan
}

// say tells the user what happens.
func (s *session) say(format string, a ...any) { s.host.Out.Notef(format, a...) }

// Check refuses a request that cannot work, before anything boots.
func (r *Request) Check() error {
	if r.Adaptive != (adaptive.Policy{}) {
		if r.Adaptive.TargetPct == 0 {
			return exit.Usagef("--budget bounds adaptive repetition: give --target-ci PCT too")
		}
		if err := r.Adaptive.Check(); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
	}
	if err := CheckBoots(r.Boots); err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	if err := vm.CheckBounds(r.Handshake, r.VMTimeout); err != nil {
		return err
	}
	if err := vm.CheckCPUModel(r.CPU); err != nil {
		return err
	}
	if r.SMP < 1 || r.SMP > 64 {
		return exit.Usagef("--smp %d: give 1 to 64 vCPUs", r.SMP)
	}
	if _, err := vm.ParseMemory(r.Memory); err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	if err := exit.Choose("--accel", r.Accel, vm.AccelKVM, vm.AccelTCG, vm.AccelAuto); err != nil {
		return err
	}
	switch {
	case r.Plan == "":
		if len(r.OnlyConfig) > 0 {
			return exit.Usagef("--only-config selects among the configurations of --plan; without --plan, give the configurations with --config")
		}
		configs, err := bootconfig.ParseAll(r.Configs)
		if err != nil {
			return err
		}
		if _, ok := bootconfig.Find(configs, "on"); !ok {
			return exit.Usagef("--config: the plan needs on, the configuration the others are compared with")
		}
	case len(r.Configs) > 0:
		return exit.Usagef("--plan and --config are mutually exclusive: --plan %s takes the configurations from the guest kernel's attribution plan; give one or the other", r.Plan)
	default:
		if err := attribute.CheckSelection(r.Plan); err != nil {
			return err
		}
		if len(r.Kernels) > 1 {
			return exit.Usagef("--plan takes one --kernel: each kernel has its own plan (its own active mitigations); run sectax lab --plan once per kernel")
		}
	}
	return nil
}

// session is one lab: the request, the host, and what every boot shares.
type session struct {
	req         *Request
	host        Host
	db          *store.DB
	kernels     []vm.Kernel
	configs     []bootconfig.Config
	mem         int
	accel       string
	qemuVersion string
	seed        int64
	total       int
	// runs are the runs measured so far and spent the boots' wall time
	// (adaptive repetition's costs).
	runs  []*run.Run
	spent time.Duration
}

// Run is `sectax lab`: it checks the request, reads the kernels, picks the
// accelerator (auto: kvm when it works, else tcg with a warning, also when
// kvm never reaches /init on the first boot), boots every step of the
// plan, stores each run, adds rounds of adaptive repetition, and returns
// the matrix of the stored runs.
func Run(ctx context.Context, req *Request, host Host) (*Matrix, error) {
	began := time.Now()
	host.Out = ui.Or(host.Out)
	measure.RemoveStaleTemps(host.Out)
	s, err := setup(ctx, req, host, false)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(s.kernels))
	for i, k := range s.kernels {
		names[i] = k.Name
	}
	steps := Schedule(req.Prefix, names, s.configs, req.Boots, s.seed)
	// The estimate is in the first line, and a lab over an hour asks
	// before anything boots or is stored.
	what := fmt.Sprintf("lab: %d kernel(s) × %d configurations × %d boots = %d boots in a shuffled order (plan seed %d), accel %s",
		len(s.kernels), len(s.configs), req.Boots, len(steps), s.seed, s.accel)
	if e := s.estimate(ctx, len(steps)); e.Duration > measure.LongWork {
		if err := host.Out.Confirm(what + ", " + e.String()); err != nil {
			return nil, err
		}
	} else if e.Duration > 0 {
		host.Out.Notef("%s, %s", what, e)
	} else {
		host.Out.Notef("%s", what)
	}
	db, done, err := host.DB.OpenMeasuring(ctx, store.Options{Create: true, Out: host.Out})
	if err != nil {
		return nil, err
	}
	defer done()
	s.db = db
	s.total = len(steps)
	var seen []string
	var spent time.Duration
	start := time.Now()
	var notes []string
	stopped := map[string]bool{}
	booted := map[string]int{}
	for i := 0; i < len(steps); i++ {
		st := steps[i]
		eta := "ETA --:--"
		if i > 0 {
			eta = "ETA " + measure.Clock(spent/time.Duration(i)*time.Duration(len(steps)-i))
		}
		s.say("%s: %s (%s elapsed, %s)", vm.BootCount(i, len(steps), req.Adaptive.TargetPct > 0), st.Label, measure.Clock(time.Since(start)), eta)
		t0 := time.Now()
		var r *run.Run
		err := s.withFallback(i == 0, func() error {
			var err error
			r, err = s.boot(ctx, s.kernels[st.Kernel], st, seen)
			return err
		})
		if err != nil {
			return nil, BootError(ctx, err, i, len(steps), st.Label)
		}
		spent += time.Since(t0)
		s.runs, s.spent = append(s.runs, r), spent
		seen = append(seen, r.Env.BootID)
		booted[st.Config.Name]++
		s.say("stored run %s (%s, boot to /init %.1fs, %s)", r.ID, st.Label, r.Lab.BootToInitS, measure.Clock(time.Since(t0)))
		if i == 0 && len(steps) > 1 {
			s.say("lab: %s", Remaining(spent, len(steps)-1, req.Adaptive.TargetPct > 0))
		}
		if i == len(steps)-1 && req.Adaptive.TargetPct > 0 {
			round, more, err := s.adaptRound(ctx, names, stopped, booted, time.Since(began), spent/time.Duration(i+1), st.Round+1)
			if err != nil {
				return nil, err
			}
			notes = append(notes, more...)
			for j := range round {
				round[j].Index = len(steps) + j + 1
			}
			steps = append(steps, round...)
			s.total = len(steps)
		}
	}
	return MakeMatrix(ctx, sides.OnDB(db), req.Prefix, names, s.configs, notes...)
}

// Remaining is the estimate said after the first boot, from what it
// took (perBoot): "a boot takes 1:28 here: about 2:56 for the 2 boots
// left" (under adaptive repetition, of the planned boots: rounds may add
// more).
func Remaining(perBoot time.Duration, left int, adaptive bool) string {
	planned, more := "", ""
	if adaptive {
		planned, more = "planned ", " (adaptive rounds may add more)"
	}
	return fmt.Sprintf("a boot takes %s here: about %s for the %d %sboots left%s", measure.Clock(perBoot), measure.Clock(perBoot*time.Duration(left)), left, planned, more)
}

// setup checks req and makes the session: the kernels, the accelerator,
// the configurations (a probe boot with --plan) and the plan seed. A dry
// run starts nothing: no QEMU (not even --version), no probe boot (the
// configurations of --plan stay unknown), and --accel auto is decided by
// /dev/kvm alone.
func setup(ctx context.Context, req *Request, host Host, dry bool) (*session, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	host.Out = ui.Or(host.Out)
	s := &session{req: req, host: host}
	s.mem, _ = vm.ParseMemory(req.Memory)
	var err error
	if req.Plan == "" {
		s.configs, _ = bootconfig.ParseAll(req.Configs)
	}
	if s.kernels, err = vm.Kernels(ctx, req.Kernels, req.Modules, host.Root, host.Snapshot.Kernel.Release); err != nil {
		return nil, err
	}
	if err := vm.CheckStatic(host.Exe); err != nil {
		return nil, err
	}
	if dry {
		// Where QEMU is, without starting it.
		if _, err := child.LookPath(vm.QEMUBinary(req.QEMU)); err != nil {
			return nil, fmt.Errorf("%s not found: install QEMU (Debian: apt-get install qemu-system-x86)", vm.QEMUBinary(req.QEMU))
		}
	} else if s.qemuVersion, err = vm.QEMUVersion(ctx, req.QEMU); err != nil {
		return nil, err
	}
	s.accel = req.Accel
	if s.accel != vm.AccelTCG {
		if kerr := vm.KVMUsable(); kerr != nil {
			if s.accel == vm.AccelKVM {
				return nil, fmt.Errorf("--accel kvm: %v; use --accel tcg (emulated: timings are not hardware costs)", kerr)
			}
			if !dry { // the preview says it
				s.say("warning: %v: falling back to --accel tcg (emulated: timings are not hardware costs)", kerr)
			}
			s.accel = vm.AccelTCG
		} else if s.accel == vm.AccelAuto {
			s.accel = vm.AccelKVM
		}
	}
	if req.Plan != "" && !dry {
		if s.configs, err = s.probe(ctx); err != nil {
			return nil, err
		}
	}
	for _, k := range s.kernels {
		if err := vm.CheckConfigs(k.Image, s.configs); err != nil {
			return nil, err
		}
	}
	s.seed = req.PlanSeed
	if s.seed == 0 {
		s.seed = host.NewSeed()
	}
	return s, nil
}

// withFallback runs boot; under --accel auto, a first boot whose kvm
// fails or never reaches /init is tried again under tcg, with a warning.
func (s *session) withFallback(first bool, boot func() error) error {
	for {
		err := boot()
		if err != nil && first && s.req.Accel == vm.AccelAuto && s.accel == vm.AccelKVM &&
			(errors.Is(err, vm.ErrAccel) || errors.Is(err, vm.ErrNoHandshake)) {
			s.say("warning: %v; falling back to --accel tcg (emulated: timings are not hardware costs)", err)
			s.accel = vm.AccelTCG
			continue
		}
		return err
	}
}

// vm is the virtual machine of one boot of k with the command line append.
func (s *session) vm(k vm.Kernel, append string) vm.QEMU {
	cpu := s.req.CPU
	if cpu == "" {
		cpu = vm.DefaultCPU(s.accel)
	}
	return vm.QEMU{Binary: s.req.QEMU, Accel: s.accel, CPU: cpu, MemoryMiB: s.mem, SMP: s.req.SMP, Kernel: k.Image.Path, Append: append}
}

// bootOptions are the options of one boot of k running task: the
// handshake waits 1m under kvm and 5m under tcg unless --handshake says,
// and the guest's log lines are said as they come.
func (s *session) bootOptions(k vm.Kernel, append string, task vm.Task) vm.BootOptions {
	hs := s.req.Handshake
	if hs <= 0 {
		hs = time.Minute
		if s.accel == vm.AccelTCG {
			hs = 5 * time.Minute
		}
	}
	return vm.BootOptions{
		QEMU:      s.vm(k, append),
		Initramfs: &vm.InitramfsOptions{Init: s.host.Exe, ModulesDir: k.ModulesDir, Modules: k.Modules, Task: task},
		Handshake: hs, Timeout: s.req.VMTimeout, TimeoutHint: " or run fewer workloads",
		OnFrame: func(f vm.Frame) {
			if f.Kind == vm.KindLog {
				s.say("  guest: %s", f.Payload)
			}
		},
	}
}

// probe is the probe boot of --plan: the kernel booted with the default
// command line (configuration on) runs the snapshot task, so that the plan
// is made from the guest kernel's own vulnerability files; it returns the
// plan's configurations (on and those of --only-config).
func (s *session) probe(ctx context.Context) ([]bootconfig.Config, error) {
	k := s.kernels[0]
	// The probe only reads what the kernel reports: like a proof's boot it
	// starts the kernel at its PVH entry (vm.Direct) where it has one.
	dir, err := tempdir.Make("probe-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	direct, derr := vm.Direct(ctx, k.Image, dir)
	if derr != nil && ctx.Err() == nil {
		s.say("probe boot: %s is booted through its bzImage (%v)", k.Name, derr)
	}
	var res *vm.BootResult
	err = s.withFallback(true, func() error {
		s.say("probe boot: %s with the default command line, to plan %s from its vulnerability files", k.Name, s.req.Plan)
		var err error
		// A snapshot's bounds: a guest cannot make the host hold more.
		opts := s.bootOptions(k, bootconfig.On.Cmdline(vm.LabParams, nil), vm.Task{Name: vm.SnapshotTask})
		opts.Limits = vm.ObserveLimits
		opts.QEMU.Direct = direct
		res, err = vm.Boot(ctx, opts)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, exit.Wrap(exit.Interrupted, errors.New("interrupted during the probe boot of --plan"))
		}
		return nil, fmt.Errorf("probe boot of --plan: %w", err)
	}
	// Checked as a proof's boot is: the line passed, the image's release,
	// bounded and escaped files.
	snap, err := vm.CheckObserved(res.Result, bootconfig.On.Cmdline(vm.LabParams, nil), k.Image.Release)
	if err != nil {
		return nil, fmt.Errorf("probe boot of --plan: %w", err)
	}
	sel, kernel, err := attribute.SelectFor(snap, s.req.Plan)
	if err != nil {
		return nil, err
	}
	attribute.SayPlan(s.host.Out, s.req.Plan, kernel, sel)
	return OnlyConfigs(sel.Configs, s.req.OnlyConfig)
}

// OnlyConfigs keeps on and the configurations named by --only-config.
func OnlyConfigs(configs []bootconfig.Config, only []string) ([]bootconfig.Config, error) {
	if len(only) == 0 {
		return configs, nil
	}
	var names []string
	for _, c := range configs {
		names = append(names, c.Name)
	}
	out := []bootconfig.Config{configs[0]}
	for _, n := range only {
		c, ok := bootconfig.Find(configs, n)
		if !ok {
			return nil, exit.Usagef("--only-config %s: not a configuration of this plan (it has %s)", n, strings.Join(names, ", "))
		}
		if c.Name != out[0].Name && !slices.ContainsFunc(out, func(x bootconfig.Config) bool { return x.Name == c.Name }) {
			out = append(out, c)
		}
	}
	return out, nil
}

// boot boots one step, imports its run and returns it.
func (s *session) boot(ctx context.Context, k vm.Kernel, st Step, seen []string) (*run.Run, error) {
	in := s.req.Measure
	in.RunID, in.Label, in.Config, in.Plan, in.SeenBootIDs = s.host.NewRunID(), st.Label, st.Config, s.configs, seen
	if in.Seed == 0 {
		in.Seed = s.host.NewSeed()
	}
	input, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	in.Cmdline, in.Release = st.Config.Cmdline(vm.LabParams, s.configs), k.Image.Release
	opts := s.bootOptions(k, in.Cmdline, vm.Task{Name: MeasureTask, Input: input})
	res, err := vm.Boot(ctx, opts)
	if err != nil {
		return nil, err
	}
	h := s.host.Snapshot
	doc, err := ImportRun(res.Result, in, &run.Lab{
		QEMUVersion: s.qemuVersion, Accel: s.accel, CPUModel: opts.QEMU.CPU, MemoryMiB: s.mem, VCPUs: s.req.SMP,
		HostKernel: h.Kernel.Release, HostCPU: h.CPU.ModelName, Kernel: k.Name, KernelImage: k.Image.Path, KernelSHA256: k.Image.SHA256,
		LabParams: vm.LabParams, Boot: st.Index, Boots: s.total, PlanSeed: s.seed,
		BootToInitS: res.ToHello.Seconds(), GuestUptimeAtInitS: res.Hello.UptimeS, VMWallS: res.Wall.Seconds(), QEMUPeakRSSKiB: res.PeakRSSKiB,
	})
	if err != nil {
		return nil, err
	}
	// This host booted and checked the guest: the run is marked as this
	// host's (decide still leaves out a guest's kernel or emulated CPU).
	// A lab under another --root describes another tree: no mark.
	doc.Run.HostMark = ""
	if r := s.host.Root; r == "" || filepath.Clean(r) == "/" {
		doc.Run.HostMark = measure.HostMark("/", doc.Run.ID, ui.Discard{})
	}
	if _, err := s.db.Import(ctx, []run.Doc{doc}); err != nil {
		return nil, err
	}
	return doc.Run, nil
}

// BootError is the error of boot i (from 0) of n, labelled label, that
// failed with err: interrupted when ctx was cancelled, unmet when the guest
// refused the boot (it did not verify), else a runtime error.
func BootError(ctx context.Context, err error, i, n int, label string) error {
	if ctx.Err() != nil {
		return exit.Wrap(exit.Interrupted, fmt.Errorf("interrupted during boot %d of %d (%s); finished boots stay stored: %d", i+1, n, label, i))
	}
	if errors.Is(err, vm.ErrNotVerified) {
		return exit.Wrap(exit.Unmet, fmt.Errorf("boot %d of %d (%s): %v (finished boots stay stored: %d)", i+1, n, label, err, i))
	}
	return fmt.Errorf("boot %d of %d (%s): %w (finished boots stay stored: %d)", i+1, n, label, err, i)
}
