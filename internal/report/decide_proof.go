package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
)

// proofHeading is the first line of a proof: what was booted, how, and
// where the answer came from.
func proofHeading(p *proven.Proof) string {
	sha := p.SHA256
	if len(sha) > 12 {
		sha = sha[:12]
	}
	view := ""
	if p.View != "" {
		view = ", " + p.View
	}
	return fmt.Sprintf("proof: kernel %s (%s, sha256 %s…) booted under %s, CPU %s (%s)%s; %d line(s) booted now, %d from the stored proof",
		p.Release, p.Image, sha, p.Accel, p.CPU, p.CPUWhy, view, p.Booted, p.Stored)
}

func proofVerdict(r proven.Row) string {
	src := "booted"
	if r.Stored {
		src = "stored"
	}
	switch {
	case r.Agree:
		return "observed as predicted (" + src + ")"
	case r.Verdict == proven.VerdictReplaced:
		return "observed REPLACED: another mitigation than predicted (" + src + ")"
	}
	return "observed DIFFERS from predicted (" + src + "): the observed sets are the option's"
}

// proofFiles are the lines of a row's files that change or do not agree
// (name, predicted, observed, verdict); same counts the others (the
// predicted text observed, the default's).
func proofFiles(r proven.Row) (lines [][4]string, same int) {
	for _, f := range r.Files {
		if f.Verdict == proven.VerdictAgree && f.Predicted.Text != "" && f.Predicted == f.Observed {
			same++
			continue
		}
		lines = append(lines, [4]string{f.Name, fileState(f.Predicted), fileState(f.Observed), f.Verdict})
	}
	return lines, same
}

func fileState(s mitigation.FileState) string {
	if s.Text == "" {
		return "(" + string(s.Class) + ")"
	}
	return s.Text
}

func proofCmdline(c string) string {
	if c == "" {
		return "the default command line"
	}
	return c
}

// proofText lays out the side-by-side of decide --prove.
func proofText(w io.Writer, p *proven.Proof) {
	fmt.Fprintf(w, "\n%s\n", proofHeading(p))
	for _, r := range p.Rows {
		fmt.Fprintf(w, "\n  %s: %s\n  %s; SMT %s\n", r.Option, proofCmdline(r.Cmdline), proofVerdict(r), r.SMT)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    \tpredicted\tobserved\n")
		fmt.Fprintf(tw, "    gives up\t%s\t%s\n", proven.SetsLine(r.Predicted.GivesUp), proven.SetsLine(r.Observed.GivesUp))
		fmt.Fprintf(tw, "    weakened\t%s\t%s\n", proven.SetsLine(r.Predicted.Weakened), proven.SetsLine(r.Observed.Weakened))
		fmt.Fprintf(tw, "    replaced\t%s\t%s\n", proven.SetsLine(r.Predicted.Replaced), proven.SetsLine(r.Observed.Replaced))
		fmt.Fprintf(tw, "    kept\t%s\t%s\n", proven.SetsLine(r.Predicted.Kept), proven.SetsLine(r.Observed.Kept))
		tw.Flush()
		if lines, same := proofFiles(r); len(r.Files) > 0 {
			if len(lines) > 0 {
				tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
				fmt.Fprintf(tw, "    file\tpredicted\tobserved\tverdict\n")
				for _, l := range lines {
					fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", l[0], l[1], l[2], l[3])
				}
				tw.Flush()
			}
			fmt.Fprintf(w, "    %d other file(s) observed as predicted, unchanged\n", same)
		}
		for _, d := range r.Disagreements {
			fmt.Fprintf(w, "    disagreement: %s\n", d)
		}
	}
	if p.Agree {
		fmt.Fprintln(w, "\n  every command line was observed as predicted, file by file")
	} else {
		fmt.Fprintf(w, "\n  the model and the kernel disagree on %d point(s): the kernel's answer is shown above (exit status 3)\n", len(p.Disagreements()))
	}
	for _, l := range p.Holds {
		fmt.Fprintf(w, "  holds for this machine's CPU: %s\n", l)
	}
	for _, l := range p.Emulated {
		fmt.Fprintf(w, "  depends on the CPU QEMU presents: %s\n", l)
	}
	for _, l := range p.Guest {
		fmt.Fprintf(w, "  being a guest: %s\n", l)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "  proof note: %s\n", n)
	}
}

// proofMarkdown lays out the side-by-side as Markdown tables.
func proofMarkdown(w io.Writer, p *proven.Proof) {
	fmt.Fprintf(w, "\n### Proof\n\n%s\n", mdEscape(proofHeading(p)))
	for _, r := range p.Rows {
		fmt.Fprintf(w, "\n#### %s: %s\n\n%s; SMT %s\n\n", mdEscape(r.Option), code(proofCmdline(r.Cmdline)), mdEscape(proofVerdict(r)), mdEscape(r.SMT))
		fmt.Fprintln(w, "| | predicted | observed |\n|---|---|---|")
		fmt.Fprintf(w, "| gives up | %s | %s |\n", mdEscape(proven.SetsLine(r.Predicted.GivesUp)), mdEscape(proven.SetsLine(r.Observed.GivesUp)))
		fmt.Fprintf(w, "| weakened | %s | %s |\n", mdEscape(proven.SetsLine(r.Predicted.Weakened)), mdEscape(proven.SetsLine(r.Observed.Weakened)))
		fmt.Fprintf(w, "| replaced | %s | %s |\n", mdEscape(proven.SetsLine(r.Predicted.Replaced)), mdEscape(proven.SetsLine(r.Observed.Replaced)))
		fmt.Fprintf(w, "| kept | %s | %s |\n", mdEscape(proven.SetsLine(r.Predicted.Kept)), mdEscape(proven.SetsLine(r.Observed.Kept)))
		if lines, same := proofFiles(r); len(r.Files) > 0 {
			if len(lines) > 0 {
				fmt.Fprintln(w, "\n| file | predicted | observed | verdict |\n|---|---|---|---|")
				for _, l := range lines {
					fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdEscape(l[0]), mdEscape(l[1]), mdEscape(l[2]), mdEscape(l[3]))
				}
			}
			fmt.Fprintf(w, "\n%d other file(s) observed as predicted, unchanged\n", same)
		}
		for _, d := range r.Disagreements {
			fmt.Fprintf(w, "\n- disagreement: %s\n", mdEscape(d))
		}
	}
	fmt.Fprintln(w)
	for _, l := range p.Holds {
		fmt.Fprintf(w, "- holds for this machine's CPU: %s\n", mdEscape(l))
	}
	for _, l := range p.Emulated {
		fmt.Fprintf(w, "- depends on the CPU QEMU presents: %s\n", mdEscape(l))
	}
	for _, l := range p.Guest {
		fmt.Fprintf(w, "- being a guest: %s\n", mdEscape(l))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "- proof note: %s\n", mdEscape(n))
	}
}
