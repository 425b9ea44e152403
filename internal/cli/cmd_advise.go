package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

func newAdviseCmd(g *Globals) *cobra.Command {
	var target string
	cmd := &cobra.Command{
		Use:   "advise",
		Short: "Print the exact steps to change the mitigations on this platform, and what you give up",
		Long: `Print how to reach a mitigation target on this machine, without changing anything:

  - the platform (WSL 2; GRUB on Debian/Ubuntu; GRUB with grubby on
    Fedora/RHEL; systemd-boot or /etc/kernel/cmdline; kernelstub on Pop!_OS;
    unknown), found from files below --root;
  - the parameters the target implies, merged into what is configured now
    (added, replaced, removed), and the command line the kernel would get;
  - the exact commands for the platform (sectax runs none of them), then the
    restart and 'sectax verify';
  - the precedence rules of the running kernel version;
  - what is given up on this machine: every vulnerability file that would
    go from mitigated to vulnerable, with the knowledge base's explanation,
    the VM-guest caveat, and targeted alternatives that keep the cheap
    protections.

--target is off (mitigations=off), auto (the kernel default: removes
mitigations= and per-bug parameters that turn mitigations off) or kernel
parameters in one argument ("mitigations=off audit=0"). Parameters with
quotes or blanks inside values are refused: the kernel, WSL and GRUB would
split them differently.`,
		Example: `  sectax advise
  sectax advise --target auto
  sectax advise --target "spectre_bhi=vmexit"
  sectax advise --target off --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := adviseInputs(cmd.Context(), g, "--target", target)
			if err != nil {
				return err
			}
			a := advise.Plan(in.snap, in.platform, in.target, in.kb)
			w, finish, err := g.output()
			if err != nil {
				return err
			}
			if g.Format == "json" {
				return finish(writeIndentedJSON(w, a))
			}
			return finish(writeAdviceText(w, &a))
		},
	}
	cmd.Flags().StringVar(&target, "target", "off", `off, auto, or kernel parameters ("mitigations=off audit=0")`)
	addFormatFlag(cmd, g, "text", "text", "json")
	return cmd
}

// adviceInputs is what advise and verify both start from.
type adviceInputs struct {
	target   advise.Target
	snap     *sysinfo.Snapshot
	platform advise.Platform
	kb       *mitigation.Knowledge
}

// adviseInputs checks --format and the target given with flag, and reads
// the machine: its snapshot, boot platform and the knowledge base.
func adviseInputs(ctx context.Context, g *Globals, flag, value string) (adviceInputs, error) {
	var in adviceInputs
	if err := checkFormat(g, "text", "json"); err != nil {
		return in, err
	}
	t, err := advise.ParseTarget(value)
	if err != nil {
		return in, usagef("%s: %s", flag, strings.TrimPrefix(err.Error(), advise.ErrTarget.Error()+": "))
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

func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeAdviceText(w io.Writer, a *advise.Advice) error {
	ew := &errWriter{w: w}
	p := a.Platform
	fmt.Fprintf(ew, "Target: %s\n", targetLabel(a.Target))
	fmt.Fprintf(ew, "Platform: %s — kernel %s\n", p.Name, a.Kernel)
	if p.ConfigPath != "" {
		where := p.ConfigPath
		if p.ConfigKey != "" {
			where += " " + p.ConfigKey
		}
		if p.ConfigLine > 0 {
			where += fmt.Sprintf(" (line %d)", p.ConfigLine)
		}
		cfg := p.Configured
		switch {
		case p.ConfigError != "":
			cfg = "(unreadable: " + p.ConfigError + ")"
		case cfg == "":
			cfg = "(nothing)"
		}
		fmt.Fprintf(ew, "Configured now: %s: %s\n", where, cfg)
		if p.ConfigNote != "" {
			fmt.Fprintf(ew, "  (%s)\n", p.ConfigNote)
		}
	}

	fmt.Fprintln(ew, "\nParameters:")
	if len(a.Changes) == 0 {
		fmt.Fprintln(ew, "  no change: the configuration already has the target")
	}
	for _, c := range a.Changes {
		switch c.Op {
		case "add":
			fmt.Fprintf(ew, "  + %s (added)\n", c.New)
		case "replace":
			fmt.Fprintf(ew, "  ~ %s → %s (replaced)\n", c.Old, c.New)
		case "remove":
			fmt.Fprintf(ew, "  - %s (removed)\n", c.Old)
		}
	}
	fmt.Fprintf(ew, "  configured after:  %s\n", orNothing(a.ConfiguredAfter))
	fmt.Fprintf(ew, "  kernel would get:  %s\n", orNothing(a.Predicted))
	fmt.Fprintf(ew, "  mode after:        %s (%s)\n", a.PredictedMode, a.PredictedModeReason)

	fmt.Fprintln(ew, "\nSteps (sectax has changed nothing; run these yourself):")
	for i, s := range a.Steps {
		fmt.Fprintf(ew, "  %d. %s\n", i+1, s.Text)
		if s.Command != "" {
			where := "$"
			if s.Where == "windows" {
				where = "PS>"
			}
			fmt.Fprintf(ew, "       %s %s\n", where, s.Command)
		}
	}

	fmt.Fprintf(ew, "\nPrecedence on kernel %s:\n", a.Kernel)
	for _, r := range a.Precedence {
		fmt.Fprintf(ew, "  - %s\n", r.Rule)
	}

	fmt.Fprintf(ew, "\nWhat you give up on this machine: %d mitigated → vulnerable\n", len(a.GivenUp))
	for _, l := range a.GivenUp {
		writeLoss(ew, l)
	}
	if len(a.Weakened) > 0 {
		fmt.Fprintf(ew, "\nWeakened (still mitigated, a sub-protection off): %d\n", len(a.Weakened))
		for _, l := range a.Weakened {
			writeLoss(ew, l)
		}
	}
	if len(a.Kept) > 0 {
		fmt.Fprintf(ew, "\nStays mitigated: %d\n", len(a.Kept))
		for _, l := range a.Kept {
			fmt.Fprintf(ew, "  - %s\n", l.Explanation)
		}
	}
	if len(a.Regained) > 0 {
		fmt.Fprintf(ew, "\nProtection regained: %d vulnerable → mitigated\n", len(a.Regained))
		for _, l := range a.Regained {
			fmt.Fprintf(ew, "  - %s\n", l.Explanation)
		}
	}
	if len(a.Toggles) > 0 {
		fmt.Fprintln(ew, "\nNot CPU mitigations (changed along with them):")
		for _, t := range a.Toggles {
			fmt.Fprintf(ew, "  - %s: %s\n", t.Param, t.Summary)
		}
	}
	if a.GuestCaveat != "" {
		fmt.Fprintf(ew, "\nVM guest: %s\n", a.GuestCaveat)
	}
	if len(a.Alternatives) > 0 {
		fmt.Fprintln(ew, "\nTargeted alternatives that keep the cheap protections:")
		for _, alt := range a.Alternatives {
			fmt.Fprintf(ew, "  - %s\n      sectax advise --target %q\n", alt.Title, alt.Params)
			if len(alt.GivesUp) > 0 {
				fmt.Fprintf(ew, "      gives up: %s\n", strings.Join(alt.GivesUp, ", "))
			}
			fmt.Fprintf(ew, "      %s\n", alt.Why)
			if alt.MinKernel != "" {
				fmt.Fprintf(ew, "      needs Linux %s+\n", alt.MinKernel)
			}
		}
	}
	if len(a.Warnings) > 0 {
		fmt.Fprintln(ew, "\nWarnings:")
		for _, wn := range a.Warnings {
			fmt.Fprintf(ew, "  ! %s\n", wn)
		}
	}
	return ew.err
}

func writeLoss(w io.Writer, l advise.Loss) {
	fmt.Fprintf(w, "  - %s\n", l.Explanation)
	if l.By != "" {
		fmt.Fprintf(w, "      by %s\n", l.By)
	}
	if l.GuestNote != "" {
		fmt.Fprintf(w, "      in this guest: %s\n", l.GuestNote)
	}
}

func targetLabel(t advise.Target) string {
	switch t.Kind {
	case advise.KindOff:
		return "off (mitigations=off)"
	case advise.KindAuto:
		return "auto (the kernel default: no parameter that turns a mitigation off)"
	}
	return mitigation.Format(t.Params)
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}
