package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/proof"
	"github.com/sectax/sectax/internal/sysinfo"
)

// proveFlags are --prove and the VM it boots (decide, advise).
type proveFlags struct {
	on                     bool
	kernel, accel, cpu, qm string
	handshake, vmTimeout   time.Duration
}

func addProveFlags(cmd *cobra.Command, f *proveFlags) {
	cmd.Flags().BoolVar(&f.on, "prove", false, "boot the kernel under QEMU once per command line and show predicted beside observed")
	cmd.Flags().StringVar(&f.kernel, "kernel", "", "with --prove: the kernel `IMAGE` to boot (default: /boot/vmlinuz-RELEASE of the running kernel)")
	cmd.Flags().StringVar(&f.accel, "accel", "auto", "with --prove: QEMU's accelerator, kvm, tcg or auto (kvm when /dev/kvm works)")
	cmd.Flags().StringVar(&f.cpu, "cpu", "", "with --prove: QEMU's CPU `MODEL` (default: host under kvm, the model nearest this CPU under tcg)")
	cmd.Flags().StringVar(&f.qm, "qemu", "", "with --prove: the QEMU `BINARY` (default qemu-system-x86_64)")
	cmd.Flags().DurationVar(&f.handshake, "handshake", 0, "with --prove: longest wait from QEMU's start to the guest's handshake (default 1m under kvm, 5m under tcg)")
	cmd.Flags().DurationVar(&f.vmTimeout, "vm-timeout", 0, "with --prove: a proof boot running longer than this is stopped (default 10m)")
}

// check refuses the VM flags without --prove.
func (f *proveFlags) check(cmd *cobra.Command) error {
	if f.on {
		return nil
	}
	for _, n := range []string{"kernel", "accel", "cpu", "qemu", "handshake", "vm-timeout"} {
		if cmd.Flags().Changed(n) {
			return usagef("--%s applies to --prove: add --prove, or drop --%s", n, n)
		}
	}
	return nil
}

// proofRequest is the proof that --prove asks for on host. The boot
// folders and image copies an interrupted proof left are removed first,
// as run and lab do.
func proofRequest(g *Globals, f *proveFlags, host *sysinfo.Snapshot) (proof.Request, error) {
	exe, err := os.Executable()
	if err != nil {
		return proof.Request{}, err
	}
	measure.RemoveStaleTemps(g.out)
	return proof.Request{Root: g.Root, Release: host.Kernel.Release, Kernel: f.kernel, Accel: f.accel, CPU: f.cpu, QEMU: f.qm,
		Handshake: f.handshake, Timeout: f.vmTimeout, Exe: exe, Host: host, CacheDir: g.deps.ProofCache, Out: g.out}, nil
}

// proofUnmet is exit status 3 when a proof's boots do not agree with the
// prediction (a file that differs, or another mitigation in its place):
// agree and the disagreements are the proof's (proven.Proof).
func proofUnmet(agree bool, disagreements []string) error {
	if agree {
		return nil
	}
	msg := "the proof's boots do not agree with the prediction"
	if len(disagreements) > 0 {
		msg += fmt.Sprintf(" (%d point(s)): %s", len(disagreements), disagreements[0])
	}
	return exit.Wrap(exit.Unmet, errors.New(msg))
}
