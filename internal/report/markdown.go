package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

func codes(ts []string) string {
	if len(ts) == 0 {
		return "nothing"
	}
	var out []string
	for _, t := range ts {
		out = append(out, code(t))
	}
	return strings.Join(out, " ")
}

// Image is a chart written as a file, for the Markdown report to link.
type Image struct {
	// Title and Alt describe the chart; Path is the link target.
	Title, Alt, Path string
}

// MarkdownOptions configure the Markdown report.
type MarkdownOptions struct {
	// Images are charts written beside the report (sectax compare --png);
	// the report links them.
	Images []Image
}

// Markdown writes the comparison as GitHub-flavoured Markdown, to paste
// into a blog post or an issue.
func Markdown(w io.Writer, rep *compare.Report) error {
	return MarkdownWith(w, rep, MarkdownOptions{})
}

// mdLink escapes a link target: spaces and parentheses would end it.
func mdLink(p string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(p)
}

// mdAlt makes text safe inside the brackets of an image.
func mdAlt(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", "<", "&lt;").Replace(mdLine(s))
}

// MarkdownWith is Markdown with options: links to the charts.
func MarkdownWith(w io.Writer, rep *compare.Report, opt MarkdownOptions) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### sectax compare: %s vs %s — %s\n\n", code(rep.A.Ref), code(rep.B.Ref), mdEscape(Headlined(rep.Conclusion.Headline, Conclusion(rep))))
	b.WriteString("| | A | B |\n|---|---|---|\n")
	row := func(name, a, c string) { fmt.Fprintf(&b, "| %s | %s | %s |\n", name, a, c) }
	row("reference", codeCell(rep.A.Ref), codeCell(rep.B.Ref))
	if rep.A.Title != "" || rep.B.Title != "" {
		row("what", mdEscape(rep.A.Title), mdEscape(rep.B.Title))
	}
	row("mitigations", mdEscape(orUnknown(rep.A.MitigationMode)), mdEscape(orUnknown(rep.B.MitigationMode)))
	row("kernel", mdEscape(orUnknown(rep.A.Kernel)), mdEscape(orUnknown(rep.B.Kernel)))
	row("runs", sideRuns(rep.A), sideRuns(rep.B))
	row("one sample is", "one "+mdEscape(rep.A.Unit), "one "+mdEscape(rep.B.Unit))
	if rep.A.Source != "" || rep.B.Source != "" {
		row("source", mdEscape(rep.A.Source), mdEscape(rep.B.Source))
		row("environment", mdEscape(rep.A.Environment), mdEscape(rep.B.Environment))
	}

	b.WriteString("\n| workload | metric | A | B | change | speedup | p | p adj | n | verdict |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, wl := range rep.Workloads {
		title := codeCell(wl.ID)
		if wl.ParamsKey != "" {
			title += " " + mdEscape(wl.ParamsKey)
		}
		if wl.Control {
			title += " (negative control)"
		}
		for i, m := range wl.Metrics {
			t := title
			if i > 0 {
				t = ""
			}
			verdict := m.Verdict
			if verdict == compare.VerdictBetter || verdict == compare.VerdictWorse {
				verdict = "**" + verdict + "**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", t, mdEscape(m.Name),
				mdEscape(Value(m.A, m.Unit, rep.A.Published)), mdEscape(Value(m.B, m.Unit, rep.B.Published)),
				m.Delta, Speedup(m.Speedup), P(m), PAdj(m), N(m), verdict)
		}
	}
	if rep.Geomean != nil {
		ns := ""
		if rep.Geomean.Tested && !rep.Geomean.Significant {
			ns = " (not significant)"
		}
		fmt.Fprintf(&b, "| **geomean** | primary metrics, %d workloads | | | | **%s**%s | | | | |\n", rep.Geomean.N, Speedup(rep.Geomean.Speedup), ns)
	}
	fmt.Fprintf(&b, "\n<sub>%s.</sub>\n", mdEscape(legend(rep)))

	if lines := Meaning(rep); len(lines) > 0 {
		b.WriteString("\n#### What this means\n\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", mdEscape(l))
		}
	}
	if len(opt.Images) > 0 {
		b.WriteString("\n#### Charts\n\n")
		for _, im := range opt.Images {
			fmt.Fprintf(&b, "![%s](%s)\n\n", mdAlt(im.Title+": "+im.Alt), mdLink(im.Path))
		}
	}

	for _, wl := range rep.Workloads {
		if len(wl.MetricsOnlyA)+len(wl.MetricsOnlyB) > 0 {
			fmt.Fprintf(&b, "\n%s: %s\n", code(wl.ID), mdEscape(onlyMetrics(wl)))
		}
	}
	if len(rep.OnlyA)+len(rep.OnlyB) > 0 {
		b.WriteString("\n**Not compared** (no partner on the other side):\n\n")
		for _, u := range rep.OnlyA {
			fmt.Fprintf(&b, "- only in A: %s\n", code(u.String()))
		}
		for _, u := range rep.OnlyB {
			fmt.Fprintf(&b, "- only in B: %s\n", code(u.String()))
		}
	}

	mdEnv(&b, rep, "####")
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEnv writes the environment differences, notes and warnings of a
// comparison under headings of level h ("####").
func mdEnv(b *strings.Builder, rep *compare.Report, h string) {
	fmt.Fprintf(b, "\n%s Environment differences\n\n", h)
	env := rep.Env
	if env.CmdlineKnown {
		fmt.Fprintf(b, "- Kernel command line: added %s; removed %s\n", codes(env.CmdlineAdded), codes(env.CmdlineRemoved))
	} else {
		b.WriteString("- Kernel command line: unknown on a side\n")
	}
	if len(env.Vulnerabilities) == 0 {
		b.WriteString("- Vulnerabilities: no change known\n")
	} else {
		b.WriteString("- Vulnerabilities:\n")
		for _, v := range env.Vulnerabilities {
			why := ""
			if v.Explain != "" {
				why = " — " + mdEscape(v.Explain)
			}
			fmt.Fprintf(b, "  - %s: %s → %s%s\n", code(v.Name), mdEscape(v.A), mdEscape(v.B), why)
		}
	}
	if len(env.Confounders) == 0 {
		b.WriteString("- Confounders: none found (unknown values are not compared)\n")
	} else {
		b.WriteString("- **Confounders** (differ besides the mitigations):\n")
		for _, c := range env.Confounders {
			fmt.Fprintf(b, "  - %s: %s → %s\n", mdEscape(c.Name), code(c.A), code(c.B))
		}
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintf(b, "\n%s Notes\n\n", h)
		for _, n := range rep.Notes {
			fmt.Fprintf(b, "- %s\n", mdEscape(n))
		}
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintf(b, "\n%s Warnings\n\n", h)
		for _, x := range rep.Warnings {
			fmt.Fprintf(b, "- ⚠️ %s\n", mdEscape(x.Message))
		}
	}
}

func sideRuns(s compare.SideInfo) string {
	if s.Kind == compare.KindBaseline {
		return "published figures"
	}
	return fmt.Sprintf("%d (%d boot%s)", len(s.Runs), s.Boots, map[bool]string{true: "", false: "s"}[s.Boots == 1])
}
