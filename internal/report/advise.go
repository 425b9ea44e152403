package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/mitigation"
)

// AdviceText writes the text of 'sectax advise'.
func AdviceText(w io.Writer, a *advise.Advice) error {
	return plainText(w, func(w io.Writer) error { return adviceText(w, a) })
}

func adviceText(w io.Writer, a *advise.Advice) error {
	ew := &errWriter{w: w}
	p := a.Platform
	fmt.Fprintf(ew, "Target: %s\n", targetLabel(a.Target))
	platform := fmt.Sprintf("Platform: %s — kernel %s", p.Name, a.Kernel)
	writeForeign(ew, termSafe(platform), platform, "", "  ")
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
		if line := fmt.Sprintf("Configured now: %s: %s", where, cfg); p.ConfigError != "" && utf8.RuneCountInString(line) > widthOf(ew) {
			// Prose about the file, not a line to copy: wrapped.
			fmt.Fprintf(ew, "Configured now: %s:\n", where)
			writeForeign(ew, termSafe(cfg), cfg, "    ", "     ")
		} else if line := fmt.Sprintf("Configured now: %s: %s", where, cfg); utf8.RuneCountInString(line) <= widthOf(ew) {
			fmt.Fprintln(ew, line)
		} else { // the command line whole on its own line
			fmt.Fprintf(ew, "Configured now: %s:\n    %s\n", where, cfg)
		}
		if p.ConfigNote != "" {
			writeForeign(ew, termSafe("("+p.ConfigNote+")"), p.ConfigNote, "  ", "   ")
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
	// A command line is said once, whole on its own line, to be copied.
	if a.ConfiguredAfter == a.Predicted {
		fmt.Fprintf(ew, "  configured after, and what the kernel would get:\n    %s\n", orNothing(a.Predicted))
	} else {
		fmt.Fprintf(ew, "  configured after:\n    %s\n", orNothing(a.ConfiguredAfter))
		fmt.Fprintf(ew, "  kernel would get:\n    %s\n", orNothing(a.Predicted))
	}
	mode := fmt.Sprintf("%s (%s)", a.PredictedMode, a.PredictedModeReason)
	writeForeign(ew, termSafe(mode), mode, "  mode after:        ", "                     ")

	fmt.Fprintln(ew, "\nSteps (sectax has changed nothing; run these yourself):")
	for i, s := range a.Steps {
		text := s.Text
		if t, ok := strings.CutSuffix(text, advise.FullLineToGive+a.Predicted); ok && a.Predicted != "" {
			text = t + "; the full command line to give is the one the kernel would get, above"
		}
		writeForeign(ew, termSafe(text), text, fmt.Sprintf("  %d. ", i+1), "     ")
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
		writeWrapped(ew, r.Rule, "  - ", "    ")
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
			writeForeign(ew, termSafe(l.Explanation), l.From+l.To+l.Explanation, "  - ", "    ")
		}
	}
	if len(a.Regained) > 0 {
		fmt.Fprintf(ew, "\nProtection regained: %d vulnerable → mitigated\n", len(a.Regained))
		for _, l := range a.Regained {
			writeForeign(ew, termSafe(l.Explanation), l.From+l.To+l.Explanation, "  - ", "    ")
		}
	}
	if len(a.Changed) > 0 {
		fmt.Fprintf(ew, "\nChanged (not mitigated now): %d\n", len(a.Changed))
		for _, l := range a.Changed {
			writeForeign(ew, termSafe(l.Explanation), l.From+l.To+l.Explanation, "  - ", "    ")
		}
	}
	if len(a.Toggles) > 0 {
		fmt.Fprintln(ew, "\nNot CPU mitigations (changed along with them):")
		for _, t := range a.Toggles {
			writeForeign(ew, termSafe(t.Param+": "+t.Summary), t.Param+": "+t.Summary, "  - ", "    ")
		}
	}
	if a.GuestCaveat != "" {
		fmt.Fprintln(ew)
		writeForeign(ew, termSafe("VM guest: "+a.GuestCaveat), a.GuestCaveat, "", "  ")
	}
	if len(a.Alternatives) > 0 {
		fmt.Fprintln(ew, "\nTargeted alternatives that keep the cheap protections:")
		for _, alt := range a.Alternatives {
			writeForeign(ew, termSafe(alt.Title), alt.Title, "  - ", "    ")
			fmt.Fprintf(ew, "      sectax advise --target %q\n", alt.Params)
			if len(alt.GivesUp) > 0 {
				writeWrapped(ew, strings.Join(alt.GivesUp, ", "), "      gives up: ", "        ")
			}
			if len(alt.Weakens) > 0 {
				writeWrapped(ew, strings.Join(alt.Weakens, ", "), "      weakens: ", "        ")
			}
			writeForeign(ew, termSafe(alt.Why), alt.Why, "      ", "      ")
			if alt.MinKernel != "" {
				fmt.Fprintf(ew, "      needs Linux %s+\n", alt.MinKernel)
			}
		}
	}
	if len(a.Warnings) > 0 {
		fmt.Fprintln(ew, "\nWarnings:")
		for _, wn := range a.Warnings {
			writeForeign(ew, termSafe(wn), wn, "  ! ", "    ")
		}
	}
	if a.Proof != nil {
		proofText(ew, a.Proof)
	}
	return ew.err
}

func writeLoss(w io.Writer, l advise.Loss) {
	writeForeign(w, termSafe(l.Explanation), l.From+l.To+l.Explanation, "  - ", "    ")
	if l.By != "" {
		writeForeign(w, termSafe("by "+l.By), "by "+l.By, "      ", "        ")
	}
	if l.GuestNote != "" {
		writeForeign(w, termSafe("in this guest: "+l.GuestNote), l.GuestNote, "      ", "        ")
	}
}

func targetLabel(t mitigation.Target) string {
	switch t.Kind {
	case mitigation.KindOff:
		return "off (mitigations=off)"
	case mitigation.KindAuto:
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

// VerificationText writes the text of 'sectax verify'.
func VerificationText(w io.Writer, v *advise.Verification) error {
	return plainText(w, func(w io.Writer) error { return verificationText(w, v) })
}

func verificationText(w io.Writer, v *advise.Verification) error {
	ew := &errWriter{w: w}
	verdict := "MET"
	if !v.Holds {
		verdict = "NOT MET"
	}
	// What comes from the machine's files (a vulnerability file, the
	// command line, the release) is one line each (termSafe).
	head := fmt.Sprintf("Expectation %s: %s — kernel %s, %s", targetLabel(v.Expect), verdict, v.Kernel, v.Platform)
	writeForeign(ew, termSafe(head), head, "", "  ")
	mode := fmt.Sprintf("Running mode: %s (%s)", v.Mode, v.ModeReason)
	writeForeign(ew, termSafe(mode), mode, "", "  ")
	fmt.Fprintln(ew)
	for _, c := range v.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		writeForeign(ew, termSafe(c.Detail), c.Detail, fmt.Sprintf("  %s %-7s ", mark, termSafe(c.Name)), "               ")
	}
	if len(v.StillMitigated) > 0 {
		fmt.Fprintln(ew, "\nStill mitigated:")
		for _, f := range v.StillMitigated {
			l := f.Name + ": " + f.Raw
			writeForeign(ew, termSafe(l), l, "  - ", "    ")
			if f.Why != "" {
				writeForeign(ew, termSafe(f.Why), f.Why, "      why: ", "        ")
			}
		}
	}
	if len(v.Reasons) > 0 {
		fmt.Fprintln(ew, "\nWhy:")
		for _, r := range v.Reasons {
			writeForeign(ew, termSafe(r), r, "  - ", "    ")
		}
	}
	if len(v.Fix) > 0 {
		fmt.Fprintln(ew, "\nWhat to do:")
		for _, f := range v.Fix {
			writeForeign(ew, termSafe(f), f, "  - ", "    ")
		}
	}
	if v.Proof != nil {
		proofText(ew, v.Proof)
	}
	return ew.err
}
