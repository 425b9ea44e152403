package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/proof"
	"github.com/sectax/sectax/internal/report"
)

func newVerifyCmd(g *Globals) *cobra.Command {
	var expect string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check that the running kernel has the expected mitigation setting (exit 3 if not)",
		Long: `Check the running kernel against an expectation, after 'sectax advise' and the
restart (wsl --shutdown on WSL 2, a reboot elsewhere):

  1. /proc/cmdline has the expected parameters (for auto: none that turns a
     mitigation off);
  2. the files of /sys/devices/system/cpu/vulnerabilities that the
     expectation turns off no longer say "Mitigation:" (parts no parameter
     controls, such as l1tf's PTE inversion, are allowed);
  3. what the configuration (.wslconfig, /etc/default/grub, …) asks for,
     to tell "asked for but not applied" from "never asked for".

--expect is off, auto or kernel parameters in one argument. Exit status 0
when the expectation holds, 3 when it does not, with the reason sectax can
see and what to do: a parameter absent from /proc/cmdline means the VM or
machine was not restarted, or a policy dropped the setting; a parameter
present while sysfs still says mitigated means a per-bug parameter
overrides it or the kernel ignores it.

When a proof of the expected line is stored for the running kernel's image
(sectax advise --target X --prove, sectax decide --prove), verify shows it
beside the check, without booting: what the kernel was observed to do with
that line under QEMU.`,
		Example: `  sectax verify --expect off
  sectax verify --expect auto
  sectax verify --expect "mitigations=off audit=0" --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runVerify(cmd.Context(), g, expect) },
	}
	cmd.Flags().StringVar(&expect, "expect", "", `off, auto (on is the same: no mitigation turned off), or kernel parameters ("mitigations=off audit=0")`)
	_ = cmd.MarkFlagRequired("expect")
	addFormatFlag(cmd, report.VerificationFormats.List())
	return cmd
}

func runVerify(ctx context.Context, g *Globals, expect string) error {
	in, err := adviseInputs(ctx, g, "--expect", expect)
	if err != nil {
		return err
	}
	v := advise.Verify(in.snap, in.platform, in.target, in.kb)
	v.Proof = proof.StoredAdvice(ctx, g.deps.ProofCache, g.Root, in.snap, in.platform, in.target, in.kb, g.out)
	if err := render(g, report.VerificationFormats, &v, report.Options{}); err != nil {
		return err
	}
	if !v.Holds {
		msg := fmt.Sprintf("expectation %s not met", in.target.String())
		if len(v.Reasons) > 0 {
			msg += ": " + v.Reasons[0]
		}
		return exit.Wrap(exit.Unmet, errors.New(msg))
	}
	return nil
}
