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
		Use:  "verify",
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
