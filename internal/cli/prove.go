package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proof"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sysinfo"
)

// proveFlags are --prove and the VM it boots (decide, advise).
type proveFlags struct {
	on                     bool
	kernel, accel, cpu, qm string
}

// proveHelp is what --prove proves and costs, for --help.
const proveHelp = `
--prove boots the kernel image this machine runs (/boot/vmlinuz-RELEASE below
--root, or --kernel IMAGE) under QEMU once per candidate command line, with no
workload, and shows per option the predicted and the observed given-up,
weakened and kept sets side by side; where they differ the observed one is
shown, with a line naming the disagreement. It proves what this kernel does
with each command line. Under KVM the guest runs -cpu host (this CPU); under
TCG (--accel tcg, no /dev/kvm) the CPU is QEMU's model (--cpu MODEL, default
the one nearest this CPU, named in the output), so which bugs are affected and
which mitigation is picked are the emulated CPU's. Cost: one boot per line,
as many at once as there are cores (some 8 s a boot under TCG); the files of
each boot are stored in a private per-user cache (/var/cache/sectax/proofs
for root, ~/.cache/sectax/proofs otherwise) and reused until the image
changes, so the next call answers without booting.`

func addProveFlags(cmd *cobra.Command, f *proveFlags) {
	cmd.Flags().BoolVar(&f.on, "prove", false, "boot the kernel under QEMU once per command line and show predicted beside observed")
	cmd.Flags().StringVar(&f.kernel, "kernel", "", "with --prove: the kernel `IMAGE` to boot (default: /boot/vmlinuz-RELEASE of the running kernel)")
	cmd.Flags().StringVar(&f.accel, "accel", "auto", "with --prove: QEMU's accelerator, kvm, tcg or auto (kvm when /dev/kvm works)")
	cmd.Flags().StringVar(&f.cpu, "cpu", "", "with --prove: QEMU's CPU `MODEL` (default: host under kvm, the model nearest this CPU under tcg)")
	cmd.Flags().StringVar(&f.qm, "qemu", "", "with --prove: the QEMU `BINARY` (default qemu-system-x86_64)")
}

// check refuses the VM flags without --prove.
func (f *proveFlags) check(cmd *cobra.Command) error {
	if f.on {
		return nil
	}
	for _, n := range []string{"kernel", "accel", "cpu", "qemu"} {
		if cmd.Flags().Changed(n) {
			return usagef("--%s applies to --prove: add --prove, or drop --%s", n, n)
		}
	}
	return nil
}

// startProof opens a proof session for host.
func startProof(ctx context.Context, g *Globals, f *proveFlags, host *sysinfo.Snapshot) (*proof.Session, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return proof.Start(ctx, proof.Request{Root: g.Root, Release: host.Kernel.Release, Kernel: f.kernel, Accel: f.accel, CPU: f.cpu, QEMU: f.qm,
		Exe: exe, Host: host, CacheDir: g.deps.ProofCache, Say: g.notice})
}

// proofTook says how long the proof took and where its answer came from.
func proofTook(g *Globals, s *proof.Session, booted, stored int, took time.Duration) {
	switch {
	case booted == 0:
		g.notice("proof: answered from %d stored boot(s) in %s (%s), no boot", stored, took.Round(time.Millisecond), s.CacheDir())
	default:
		g.notice("proof: %d boot(s), %d stored before, in %s", booted, stored, took.Round(100*time.Millisecond))
	}
}

// proveDecision is decide --prove around decide.Decide: the default line
// is booted (or loaded) first, the decision is made on that boot's
// machine (the kernel and CPU booted), then every option's line is booted
// (or loaded) and laid beside its prediction.
func proveDecision(ctx context.Context, g *Globals, f *proveFlags, in *decide.Input) (*decide.Decision, error) {
	t0 := time.Now()
	ps, err := startProof(ctx, g, f, in.Snap)
	if err != nil {
		return nil, err
	}
	defer ps.Close()
	if err := ps.Observe(ctx, []string{""}, func(string) string { return "keep-all (the default command line)" }); err != nil {
		return nil, err
	}
	host := in.Snap
	in.Snap = ps.Snapshot("")
	d, err := decide.Decide(*in)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, o := range d.Options {
		if names[o.Cmdline] == "" {
			names[o.Cmdline] = o.Name
		}
	}
	if err := ps.Observe(ctx, decide.ProofLines(d), func(l string) string { return names[l] + " (" + l + ")" }); err != nil {
		return nil, err
	}
	pin := ps.Input()
	if err := decide.Prove(d, pin); err != nil {
		return nil, err
	}
	if host.Kernel.Release != pin.Release || pin.Accel != "kvm" {
		d.Proof.Notes = append(d.Proof.Notes, fmt.Sprintf("the options and their sets are those of kernel %s on the %s CPU as booted, not of this machine's running kernel %s on %s",
			safetext.Line(pin.Release), safetext.Line(pin.CPU), safetext.Line(host.Kernel.Release), safetext.Line(host.CPU.ModelName)))
	}
	proofTook(g, ps, pin.Booted, len(pin.Stored), time.Since(t0))
	return d, nil
}

// proveAdvice is advise --target X --prove: the default line and the
// target's parameters are booted (or loaded) together, the advice is
// made on the default boot's machine (the kernel and CPU booted) for this
// machine's platform, and the target's boot is laid beside its
// prediction.
func proveAdvice(ctx context.Context, g *Globals, f *proveFlags, in adviceInputs) (*advise.Advice, error) {
	t0 := time.Now()
	ps, err := startProof(ctx, g, f, in.snap)
	if err != nil {
		return nil, err
	}
	defer ps.Close()
	line := mitigation.Format(in.target.Params)
	label := func(l string) string {
		if l == "" {
			return "the default command line"
		}
		return l
	}
	if err := ps.Observe(ctx, []string{"", line}, label); err != nil {
		return nil, err
	}
	base := ps.Snapshot("")
	a := advise.For(base, in.platform, in.target, in.kb)
	pin := ps.Input()
	p := proven.New(pin)
	var lost, weak []string
	for _, l := range a.GivenUp {
		lost = append(lost, l.Name)
	}
	for _, l := range a.Weakened {
		weak = append(weak, l.Name)
	}
	row := p.Add("target "+in.target.String(), line, base, ps.Snapshot(line), decide.PredictedSets(base, lost, weak), pin.Stored[line])
	if !row.Agree {
		a.Warnings = append(a.Warnings, "the boot of the target disagrees with the prediction above: the proof's observed sets are what this kernel does")
	}
	if in.snap.Kernel.Release != pin.Release || pin.Accel != "kvm" {
		p.Notes = append(p.Notes, fmt.Sprintf("the advice is for kernel %s on the %s CPU as booted, not for this machine's running kernel %s on %s",
			safetext.Line(pin.Release), safetext.Line(pin.CPU), safetext.Line(in.snap.Kernel.Release), safetext.Line(in.snap.CPU.ModelName)))
	}
	a.Proof = p
	proofTook(g, ps, pin.Booted, len(pin.Stored), time.Since(t0))
	return &a, nil
}

// storedProof is verify's proof: the stored boots of the running kernel's
// image (lab.DefaultImages below --root) with the default line and the
// expected one, laid beside advise's prediction; nil when none is stored.
// Nothing boots and nothing is made.
func storedProof(ctx context.Context, g *Globals, in adviceInputs) *proven.Proof {
	image, _ := lab.DefaultImages(g.Root, in.snap.Kernel.Release)
	if image == "" {
		return nil
	}
	line := mitigation.Format(in.target.Params)
	pin, notes := proof.Stored(ctx, g.deps.ProofCache, image, line, in.snap.CPU.ModelName)
	for _, n := range notes {
		g.notice("warning: %s", n)
	}
	if pin == nil {
		return nil
	}
	base := pin.Obs[""]
	a := advise.For(base, in.platform, in.target, in.kb)
	var lost, weak []string
	for _, l := range a.GivenUp {
		lost = append(lost, l.Name)
	}
	for _, l := range a.Weakened {
		weak = append(weak, l.Name)
	}
	p := proven.New(*pin)
	p.Add("expect "+in.target.String(), line, base, pin.Obs[line], decide.PredictedSets(base, lost, weak), true)
	// The running files beside the proof's observation of the same line.
	for _, v := range in.snap.Vulnerabilities {
		for _, w := range pin.Obs[line].Vulnerabilities {
			if v.Name == w.Name && v.State != w.State {
				p.Notes = append(p.Notes, fmt.Sprintf("%s: this machine shows %q, the proof's boot of this line showed %q (%s)", v.Name, safetext.Clip(v.Raw, 120), safetext.Clip(w.Raw, 120), proofCPU(pin)))
			}
		}
	}
	return p
}

func proofCPU(in *proven.Input) string {
	if in.Accel == "kvm" {
		return "under kvm on this CPU"
	}
	return "under tcg on QEMU's " + safetext.Line(in.CPU)
}
