package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proof"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/sysinfo"
)

// adviseOptions are the flags of `sectax advise`.
type adviseOptions struct {
	target string
	prove  proveFlags
}

func newAdviseCmd(g *Globals) *cobra.Command {
	o := &adviseOptions{}
	cmd := &cobra.Command{
		Use:  "advise",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.prove.check(cmd); err != nil {
				return err
			}
			return runAdvise(cmd.Context(), g, o)
		},
	}
	cmd.Flags().StringVar(&o.target, "target", "off", `off, auto, or kernel parameters ("mitigations=off audit=0")`)
	addProveFlags(cmd, &o.prove)
	addFormatFlag(cmd, report.AdviceFormats.List())
	return cmd
}

func runAdvise(ctx context.Context, g *Globals, o *adviseOptions) error {
	in, err := adviseInputs(ctx, g, "--target", o.target)
	if err != nil {
		return err
	}
	a := advise.For(in.snap, in.platform, in.target, in.kb)
	if o.prove.on {
		req, err := proofRequest(g, &o.prove, in.snap)
		if err != nil {
			return err
		}
		p, err := proof.Advice(ctx, req, in.platform, in.target, in.kb)
		if err != nil {
			return err
		}
		a = *p
	}
	if err := render(g, report.AdviceFormats, &a, report.Options{}); err != nil {
		return err
	}
	if a.Proof == nil {
		return nil
	}
	return proofUnmet(a.Proof.Agree, a.Proof.Disagreements())
}

// adviceInputs is what advise and verify both start from.
type adviceInputs struct {
	target   mitigation.Target
	snap     *sysinfo.Snapshot
	platform advise.Platform
	kb       *mitigation.Knowledge
}

// adviseInputs checks the target given with flag, and reads the machine:
// its snapshot, boot platform and the knowledge base.
func adviseInputs(ctx context.Context, g *Globals, flag, value string) (adviceInputs, error) {
	var in adviceInputs
	t, err := mitigation.ParseTarget(value)
	if err != nil {
		return in, usagef("%s: %s", flag, strings.TrimPrefix(err.Error(), mitigation.ErrTarget.Error()+": "))
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return in, err
	}
	s, err := collectEnv(ctx, g)
	if err != nil {
		return in, err
	}
	return adviceInputs{target: t, snap: s, platform: advise.Probe(g.Root, s), kb: kb}, nil
}
