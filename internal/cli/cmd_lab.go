package cli

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/vm"
)

// labOptions are the flags of `sectax lab`.
type labOptions struct {
	req    lab.Request
	dryRun bool
}

func newLabCmd(g *Globals) *cobra.Command {
	o := &labOptions{}
	var sel *plan.Request
	cmd := &cobra.Command{
		Use:  "lab",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.req.Measure.Request = *sel
			return runLab(cmd.Context(), g, o)
		},
	}
	sel = measureFlags(cmd)
	hostFlags(cmd, sel)
	f := cmd.Flags()
	f.StringArrayVar(&o.req.Kernels, "kernel", nil, "kernel `IMAGE` to boot (repeatable; default the running kernel's /boot/vmlinuz-RELEASE, below --root)")
	f.StringVar(&o.req.Modules, "modules", "", "the kernel's modules `DIR` (default /lib/modules/RELEASE below --root, RELEASE read from the image)")
	f.StringArrayVar(&o.req.Configs, "config", nil, "configuration: on, off, or NAME=PARAMS such as off=mitigations=off (repeatable; default on and off)")
	f.StringVar(&o.req.Plan, "plan", "", "take the configurations from the guest kernel's attribution plan of `KIND`: "+strings.Join(attribute.Selections, "|")+" (a first probe boot reads the guest's vulnerability files; one --kernel; not with --config)")
	f.StringSliceVar(&o.req.OnlyConfig, "only-config", nil, "with --plan: boot only these `NAMES` of the plan's configurations (on always)")
	f.IntVar(&o.req.Boots, "boots", 2, "boots per kernel and configuration (the boot is the unit of the comparison)")
	f.StringVar(&o.req.Prefix, "label", "lab", "label `PREFIX` of the runs: PREFIX-KERNEL-CONFIG")
	f.StringVar(&o.req.Accel, "accel", vm.AccelAuto, "QEMU accelerator: kvm|tcg|auto")
	f.StringVar(&o.req.CPU, "cpu", "", "QEMU CPU `MODEL` (default host under kvm, "+vm.TCGCPU+" under tcg)")
	f.StringVar(&o.req.Memory, "memory", "1G", "guest memory (e.g. 1G, 512M)")
	f.IntVar(&o.req.SMP, "smp", 2, "guest vCPUs")
	f.StringVar(&o.req.QEMU, "qemu", "qemu-system-x86_64", "QEMU `BINARY`")
	f.DurationVar(&o.req.VMTimeout, "vm-timeout", 2*time.Hour, "a boot running longer than this is stopped")
	f.DurationVar(&o.req.Handshake, "handshake", 0, "longest wait from QEMU's start to /init's handshake (default 1m under kvm, 5m under tcg)")
	f.Float64Var(&o.req.Adaptive.TargetPct, "target-ci", 0, "adaptive repetition: after --boots, keep adding boots until the interval of each configuration's change against on is at most ±`PCT` points (needs --budget)")
	f.DurationVar(&o.req.Adaptive.Budget, "budget", 0, "with --target-ci: the longest the whole lab may run; no added round starts that would overrun it (the --boots rounds always run)")
	f.Int64Var(&o.req.PlanSeed, "plan-seed", 0, "seed of the shuffled boot order (default: random, recorded in every run)")
	f.BoolVar(&o.dryRun, "dry-run", false, dryRunUsage)
	yesFlag(cmd, g)
	addFormatFlag(cmd, report.LabMatrixFormats.List())
	return cmd
}

func runLab(ctx context.Context, g *Globals, o *labOptions) error {
	if err := o.req.Check(); err != nil {
		return err
	}
	if o.req.Measure.CPUs != "" {
		return usagef("--cpus does not apply to sectax lab: the guest's vCPUs are --smp")
	}
	if err := checkLabel(o.req.Prefix); err != nil {
		return err
	}
	// The selection is checked here, with the same rules the guest uses.
	pl, err := makePlan(ctx, g, &o.req.Measure.Request, []string{"native"})
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	host, err := collectEnv(ctx, g)
	if err != nil {
		return err
	}
	ref, err := g.ref()
	if err != nil && !o.dryRun { // a preview reads no store it cannot name
		return err
	}
	h := lab.Host{Root: g.Root, Exe: exe, Snapshot: host, DB: ref, NewRunID: g.deps.NewRunID, NewSeed: randomSeed, Out: g.out, RunPlan: pl}
	if o.dryRun {
		p, err := lab.DryRun(ctx, &o.req, h)
		if err != nil {
			return err
		}
		return render(g, report.LabPreviewFormats, p, report.Options{})
	}
	m, err := lab.Run(ctx, &o.req, h)
	if err != nil {
		return err
	}
	return render(g, report.LabMatrixFormats, m, report.Options{})
}
