package report

import (
	"fmt"
	"io"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
)

// proofHeading is the first line of a proof: what was booted, how, and
// where the answer came from.
func proofHeading(p *proven.Proof) string {
	return fmt.Sprintf("proof: kernel %s (%s, sha256 %s…) booted under %s, CPU %s (%s)%s; %d line(s) booted now, %d from the stored proof",
		p.Release, p.Image, proofSHA(p), p.Accel, p.CPU, p.CPUWhy, proofView(p), p.Booted, p.Stored)
}

// proofSHA is the start of the booted image's SHA-256.
func proofSHA(p *proven.Proof) string {
	if len(p.SHA256) > 12 {
		return p.SHA256[:12]
	}
	return p.SHA256
}

// proofView is what the guest sees of its machine, after a comma.
func proofView(p *proven.Proof) string {
	if p.View == "" {
		return ""
	}
	return ", " + p.View
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

// proofText lays out the side-by-side of decide --prove: per command
// line the sets and the files, predicted above observed ("both" where
// they are alike; a file's verdict where it is not agree), each text
// wrapped under its own column; a command line to copy whole on its own
// line when it does not fit beside its option.
func proofText(w io.Writer, p *proven.Proof) {
	// The heading without the image's path, then the path whole on a line
	// of its own: where a line breaks does not depend on its length.
	head := fmt.Sprintf("proof: kernel %s booted under %s, CPU %s (%s)%s; %d line(s) booted now, %d from the stored proof",
		p.Release, p.Accel, p.CPU, p.CPUWhy, proofView(p), p.Booted, p.Stored)
	fmt.Fprintln(w)
	writeForeign(w, termSafe(head), head, "", "  ")
	fmt.Fprintf(w, "  image (sha256 %s…):\n    %s\n", proofSHA(p), p.Image)
	for _, r := range p.Rows {
		fmt.Fprintln(w)
		writeLabelled(w, "  "+r.Option+":", proofCmdline(r.Cmdline), "    ")
		writeForeign(w, termSafe(proofVerdict(r)+"; SMT "+r.SMT), proofVerdict(r)+"; SMT "+r.SMT, "  ", "    ")
		var rows [][]string
		var raw []string
		add := func(name, which, text string) {
			rows = append(rows, []string{termSafe(name), which, termSafe(text)})
			raw = append(raw, text)
		}
		// predicted above observed, or "both" where they are alike.
		pair := func(name, predicted, observed string) {
			if predicted == observed {
				add(name, "both", predicted)
				return
			}
			add(name, "predicted", predicted)
			add("", "observed", observed)
		}
		for _, set := range []struct {
			name               string
			predicted, observe []string
		}{{"    gives up", r.Predicted.GivesUp, r.Observed.GivesUp}, {"    weakened", r.Predicted.Weakened, r.Observed.Weakened},
			{"    replaced", r.Predicted.Replaced, r.Observed.Replaced}, {"    kept", r.Predicted.Kept, r.Observed.Kept}} {
			pair(set.name, proven.SetsLine(set.predicted), proven.SetsLine(set.observe))
		}
		if lines, same := proofFiles(r); len(r.Files) > 0 {
			for _, l := range lines {
				pair("    "+l[0], l[1], l[2])
				if l[3] != "" && l[3] != proven.VerdictAgree {
					add("", "verdict", l[3])
				}
			}
			writeTableWrapped(w, rows, raw)
			fmt.Fprintf(w, "    %d other file(s) observed as predicted, unchanged\n", same)
		} else {
			writeTableWrapped(w, rows, raw)
		}
		for _, d := range r.Disagreements {
			writeForeign(w, termSafe(d), d, "    disagreement: ", "      ")
		}
	}
	if p.Agree {
		fmt.Fprintln(w, "\n  every command line was observed as predicted, file by file")
	} else {
		fmt.Fprintln(w)
		writeWrapped(w, fmt.Sprintf("the model and the kernel disagree on %d point(s): the kernel's answer is shown above (exit status 3)", len(p.Disagreements())), "  ", "    ")
	}
	for _, x := range []struct {
		what  string
		lines []string
	}{{"holds for this machine's CPU: ", p.Holds}, {"depends on the CPU QEMU presents: ", p.Emulated}, {"being a guest: ", p.Guest}, {"proof note: ", p.Notes}} {
		for _, l := range x.lines {
			writeForeign(w, termSafe(x.what+l), x.what+l, "  ", "    ")
		}
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
