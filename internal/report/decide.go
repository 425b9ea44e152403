package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/stats"
)

// DecisionJSON writes the sectax.decide/v1 document.
func DecisionJSON(w io.Writer, d *decide.Decision) error { return WriteJSON(w, d) }

// decideSaving words a saving as the one of three claims it supports:
// "saves X% [lo, hi]", "costs nothing beyond ±M% here", or "not measured
// precisely enough: could not have seen less than D%" with the command
// that would measure it.
func decideSaving(s decide.Saving) string {
	v := stats.FormatPct(s.Pct)
	if !s.Significant {
		v += " ~"
	}
	v += " " + pctInterval(s.Interval)
	switch s.Claim {
	case decide.ClaimSaves:
		return "saves " + v
	case decide.ClaimNothing:
		return "costs nothing beyond " + marginText(s.Equivalence.MarginPct) + " here (" + v + ")"
	}
	seen := "no interval of the change (too few samples, or sides of different units)"
	if s.DetectablePct != nil {
		seen = "could not have seen less than " + detectableText(*s.DetectablePct)
	}
	out := "not measured precisely enough: " + seen + " (" + v + ")"
	if s.Remeasure != "" {
		out += "; measure it precisely with: " + s.Remeasure
	}
	return out
}

func decideList(vs []string) string {
	if len(vs) == 0 {
		return none
	}
	return strings.Join(vs, ", ")
}

// decideNoRecommendation is the line that says why there is none: the
// vulnerability files cannot be read (the note says more), or no vectors
// were named.
func decideNoRecommendation(d *decide.Decision, no string) string {
	if d.Facts.Unreadable {
		return no + " recommendation: the vulnerability files cannot be read here, so what an option gives up cannot be told."
	}
	return no + " recommendation: say which vectors you need."
}

// decideLines are the lines each option shows: its command line, what it
// drops and gives up here, and its measured saving or how to measure it.
func decideLines(o decide.Option) []string {
	cmd := o.Cmdline
	switch {
	case o.Name == decide.KeepAll && cmd == "":
		cmd = "(the default command line)"
	case o.Name == decide.KeepAll:
		cmd += " (the kernel's default)"
	case o.SameAs != "":
		cmd = "changes nothing here beyond " + o.SameAs
	}
	if o.Current {
		cmd += " — the running command line already is this"
	}
	givesUp := decideList(o.GivesUp)
	if o.Unseen {
		givesUp = "cannot tell: the vulnerability files cannot be read here"
	}
	out := []string{"command line: " + cmd, "drops: " + decideList(o.Drops), "gives up here: " + givesUp}
	if len(o.Restores) > 0 {
		out = append(out, "turns back on (the running command line drops them): "+decideList(o.Restores))
	}
	if len(o.Weakened) > 0 {
		out = append(out, "weakened here (still mitigated, a part off): "+decideList(o.Weakened))
	}
	for _, n := range o.Inexact {
		out = append(out, "not exact: "+n)
	}
	switch {
	case o.Name == decide.KeepAll || o.SameAs != "":
	case o.Saving == nil && o.Current:
		out = append(out, "saving: not measured: the runs labelled on are of this command line, not of keep-all")
	case o.Saving == nil:
		out = append(out, "saving: not measured yet; measure it with: "+o.Measure)
	default:
		for _, s := range o.Saving {
			out = append(out, fmt.Sprintf("saving on %s %s (%s): %s", s.Workload, s.Params, s.Metric, decideSaving(s)))
		}
	}
	return out
}

// DecisionText renders the decision as plain text.
func DecisionText(w io.Writer, d *decide.Decision) error {
	return plainText(w, func(w io.Writer) error {
		fmt.Fprintf(w, "decision for kernel %s\n", d.Facts.Kernel)
		for _, n := range d.Facts.Notes {
			writeForeign(w, termSafe(n), n, "  machine: ", "    ")
		}
		for _, o := range d.Options {
			fmt.Fprintf(w, "\n%s\n", o.Name)
			for _, l := range decideLines(o) {
				writeForeign(w, termSafe(l), l, "  ", "    ")
			}
		}
		if d.Proof != nil {
			proofText(w, d.Proof)
		}
		fmt.Fprintln(w)
		if d.Recommended == nil {
			writeWrapped(w, decideNoRecommendation(d, "no"), "", "  ")
			for _, g := range d.Guide {
				writeForeign(w, termSafe(g), g, "  - ", "    ")
			}
		} else {
			rec := fmt.Sprintf("recommended: %s (%s)", *d.Recommended, d.Why)
			writeForeign(w, termSafe(rec), rec, "", "  ")
			if d.Line != "" {
				writeLabelled(w, "  the line to apply:", d.Line, "    ")
			}
			for i, s := range d.Steps {
				st := fmt.Sprintf("[%s] %s", s.Where, s.Text)
				writeForeign(w, termSafe(st), st, fmt.Sprintf("  %d. ", i+1), "     ")
				if s.Command != "" {
					fmt.Fprintf(w, "     %s\n", s.Command)
				}
			}
			if d.Verify != "" && !slices.ContainsFunc(d.Steps, func(s advise.Step) bool { return s.Command == d.Verify }) {
				writeLabelled(w, "  after the restart:", d.Verify, "    ")
			}
		}
		for _, n := range d.Notes {
			writeForeign(w, termSafe(n), n, "note: ", "  ")
		}
		return nil
	})
}

// DecisionMarkdown renders the decision as Markdown.
func DecisionMarkdown(w io.Writer, d *decide.Decision) error {
	fmt.Fprintf(w, "## Decision for kernel %s\n\n", mdEscape(d.Facts.Kernel))
	for _, n := range d.Facts.Notes {
		fmt.Fprintf(w, "- %s\n", mdEscape(n))
	}
	for _, o := range d.Options {
		fmt.Fprintf(w, "\n### %s\n\n", mdEscape(o.Name))
		for _, l := range decideLines(o) {
			fmt.Fprintf(w, "- %s\n", mdEscape(l))
		}
	}
	if d.Proof != nil {
		proofMarkdown(w, d.Proof)
	}
	fmt.Fprintln(w)
	if d.Recommended == nil {
		fmt.Fprintln(w, decideNoRecommendation(d, "No"))
		fmt.Fprintln(w)
		for _, g := range d.Guide {
			fmt.Fprintf(w, "- %s\n", mdEscape(g))
		}
	} else {
		fmt.Fprintf(w, "**Recommended: %s** (%s)\n\n", mdEscape(*d.Recommended), mdEscape(d.Why))
		if d.Line != "" {
			fmt.Fprintf(w, "The line to apply: %s\n\n", code(d.Line))
		}
		for i, s := range d.Steps {
			fmt.Fprintf(w, "%d. %s (%s)", i+1, mdEscape(s.Text), mdEscape(s.Where))
			if s.Command != "" {
				fmt.Fprintf(w, ": %s", code(s.Command))
			}
			fmt.Fprintln(w)
		}
		if d.Verify != "" {
			fmt.Fprintf(w, "\nAfter the restart: %s\n", code(d.Verify))
		}
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "\n> %s\n", mdEscape(n))
	}
	return nil
}
