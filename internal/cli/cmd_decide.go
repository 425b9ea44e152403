package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proof"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/store"
)

// decideOptions are the flags of `sectax decide`.
type decideOptions struct {
	protect, profile       string
	hasProtect, anyMachine bool
	margin                 float64
	prove                  proveFlags
}

func newDecideCmd(g *Globals) *cobra.Command {
	o := &decideOptions{}
	cmd := &cobra.Command{
		Use:  "decide",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.prove.check(cmd); err != nil {
				return err
			}
			o.hasProtect = cmd.Flags().Changed("protect")
			return runDecide(cmd.Context(), g, o)
		},
	}
	cmd.Flags().StringVar(&o.protect, "protect", "", "the attack `VECTORS` you need kept (comma list, or none)")
	cmd.Flags().StringVar(&o.profile, "profile", "", "a documented vector set: `NAME` of "+strings.Join(decide.ProfileNames, "|"))
	cmd.Flags().BoolVar(&o.anyMachine, "any-machine", false, "take savings from stored runs of any kernel and CPU, not only this machine's")
	addMarginFlag(cmd, &o.margin)
	addProveFlags(cmd, &o.prove)
	addFormatFlag(cmd, report.DecisionFormats.List())
	return cmd
}

func runDecide(ctx context.Context, g *Globals, o *decideOptions) error {
	if err := checkMargin(o.margin); err != nil {
		return err
	}
	in := decide.Input{Root: g.Root, Profile: o.profile, AnyMachine: o.anyMachine, MarginPct: o.margin}
	if o.hasProtect {
		var err error
		if in.Protect, err = decide.ParseProtect(o.protect); err != nil {
			return err
		}
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return err
	}
	in.KB = kb
	if in.Snap, err = collectEnv(ctx, g); err != nil {
		return err
	}
	in.Platform = advise.Probe(g.Root, in.Snap)
	db, oerr := openStore(ctx, g, false)
	switch {
	case errors.Is(oerr, store.ErrNoDatabase):
	case oerr != nil:
		return oerr
	default:
		defer db.Close()
		if in.Arms, err = attribute.StoredArms(ctx, db); err != nil {
			return err
		}
	}
	var d *decide.Decision
	if o.prove.on {
		var req proof.Request
		if req, err = proofRequest(g, &o.prove, in.Snap); err == nil {
			d, err = proof.Decision(ctx, req, in)
		}
	} else {
		d, err = decide.Decide(in)
	}
	if err != nil {
		return err
	}
	if err := render(g, report.DecisionFormats, d, report.Options{}); err != nil {
		return err
	}
	if d.Proof == nil {
		return nil
	}
	return proofUnmet(d.Proof.Agree, d.Proof.Disagreements())
}
