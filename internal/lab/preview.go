package lab

import (
	"context"
	"github.com/sectax/sectax/internal/vm"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
)

// What a boot adds to its run in a lab's estimate (QEMU's start, the
// kernel's boot to /init, the import), and how much slower the emulator
// runs the workloads: the README's two TCG boots took 17 s in all, and
// their syscall-basic and sched-pipe ran some 10× slower than on the host.
const (
	bootCostKVM = 5 * time.Second
	bootCostTCG = 10 * time.Second
	tcgSlowdown = 10
)

// estimate is how long n boots take: each boot the plan's figure scaled
// by this machine's stored lab runs of the suite under the accelerator
// (their whole boots, the lab block's VM wall time: run.Run.Took), else
// the plan's figure (×tcgSlowdown under tcg) plus the boot itself. Zero
// without a plan.
func (s *session) estimate(ctx context.Context, n int) plan.Estimate {
	if s.host.RunPlan == nil {
		return plan.Estimate{}
	}
	var past []*run.Run
	if !s.host.DB.IsZero() {
		past = s.host.DB.PastRunsAt(ctx, "", string(s.host.RunPlan.Suite), "native", s.accel)
	}
	e := s.host.RunPlan.Estimate(s.req.Measure.Warmup, past)
	if e.Past > 0 {
		return e.Times(n, 0) // whole boots
	}
	boot := bootCostKVM
	if s.accel == vm.AccelTCG {
		boot = bootCostTCG
		e.Duration *= tcgSlowdown
	}
	return e.Times(n, boot)
}

// Preview is a lab as 'sectax lab --dry-run' shows it: the boots in order
// with their QEMU and kernel command lines, and the estimate. Nothing is
// booted to make it.
type Preview struct {
	Kernels []PreviewKernel `json:"kernels"`
	// Accel is the accelerator the boots get; AccelNote says how it was
	// chosen (--accel auto).
	Accel     string `json:"accel"`
	AccelNote string `json:"accel_note,omitempty"`
	// Seed orders the boots; SeedDrawn says it was drawn for the preview
	// (the lab draws another unless given --plan-seed).
	Seed      int64 `json:"plan_seed"`
	SeedDrawn bool  `json:"plan_seed_drawn"`
	// Probe, with --plan, is the boot that decides the configurations
	// (its command lines are shown; the plan's boots are not known yet).
	Probe    *PreviewBoot  `json:"probe,omitempty"`
	Boots    []PreviewBoot `json:"boots"`
	Estimate plan.Estimate `json:"-"`
	// Notes say what the lab writes: its runs in the store, its
	// temporary folders.
	Notes []string `json:"notes"`
}

// PreviewKernel is one kernel of a preview.
type PreviewKernel struct {
	Name    string `json:"name"`
	Image   string `json:"image"`
	Release string `json:"release,omitempty"`
	Modules string `json:"modules,omitempty"`
}

// PreviewBoot is one boot of a preview.
type PreviewBoot struct {
	Boot    int      `json:"boot"`
	Label   string   `json:"label"`
	Cmdline string   `json:"cmdline"`
	QEMU    []string `json:"qemu"`
}

// The files a boot's QEMU command line names that exist only once the boot
// has started (its temporary folder).
const (
	previewInitramfs = "BOOTDIR/initramfs.cpio"
	previewConsole   = "BOOTDIR/console.log"
	previewChannel   = "BOOTDIR/channel"
)

// DryRun is the plan of req on host without booting anything: no QEMU is
// started, no store opened, nothing written.
func DryRun(ctx context.Context, req *Request, host Host) (*Preview, error) {
	s, err := setup(ctx, req, host, true)
	if err != nil {
		return nil, err
	}
	p := &Preview{Accel: s.accel, Seed: s.seed, SeedDrawn: req.PlanSeed == 0}
	if req.Accel == vm.AccelAuto {
		if s.accel == vm.AccelKVM {
			p.AccelNote = "auto: /dev/kvm opens; if the first boot never reaches /init, the lab falls back to tcg"
		} else {
			p.AccelNote = "auto: /dev/kvm cannot be used, so tcg"
		}
	}
	var names []string
	for _, k := range s.kernels {
		names = append(names, k.Name)
		p.Kernels = append(p.Kernels, PreviewKernel{Name: k.Name, Image: k.Image.Path, Release: k.Image.Release, Modules: k.ModulesDir})
	}
	boot := func(i int, label string, k vm.Kernel, cmdline string) PreviewBoot {
		q := s.vm(k, cmdline)
		q.Initrd, q.Console, q.Channel = previewInitramfs, previewConsole, previewChannel
		return PreviewBoot{Boot: i, Label: label, Cmdline: cmdline, QEMU: append([]string{q.Binary}, q.Args()...)}
	}
	n := 0
	if req.Plan != "" {
		pb := boot(0, "probe", s.kernels[0], bootconfig.On.Cmdline(vm.LabParams, nil))
		p.Probe = &pb
		p.Notes = append(p.Notes, "with --plan "+req.Plan+", the probe boot's vulnerability files decide the configurations: the boots that follow (and the estimate) are known only then",
			"the probe boot starts the kernel unpacked (-kernel BOOTDIR/vmlinux-…) at its PVH entry where it has one, as a proof's boot does; the measured boots start the bzImage as shown")
	} else {
		for _, st := range Schedule(req.Prefix, names, s.configs, req.Boots, s.seed) {
			p.Boots = append(p.Boots, boot(st.Index, st.Label, s.kernels[st.Kernel], st.Config.Cmdline(vm.LabParams, s.configs)))
		}
		n = len(p.Boots)
	}
	if n > 0 {
		p.Estimate = s.estimate(ctx, n)
	}
	p.Notes = append(p.Notes,
		"each boot gets a temporary folder (BOOTDIR: its initramfs with this sectax as /init, the console log, the result channel), removed when the boot ends",
		"each boot's run is stored, labelled PREFIX-KERNEL-CONFIG; the host's boot is never touched")
	return p, nil
}
