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

// mdLink escapes a link target: spaces and parentheses would end it.
func mdLink(p string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(p)
}

// mdAlt makes text safe inside the brackets of an image.
func mdAlt(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", "<", "&lt;").Replace(mdLine(s))
}

// Markdown writes a comparison of two or more sides as GitHub-flavoured
// Markdown, to paste into a blog post or an issue: the sides, a table with
// a row per workload and metric and a column per side, then for each side
// what it means and its differences from A. opt.Images are charts written
// beside the report (sectax compare --png); the report links them.
func Markdown(w io.Writer, c *compare.Comparison, opt Options) error {
	var b strings.Builder
	var refs []string
	for _, r := range c.Sides() {
		refs = append(refs, code(r))
	}
	fmt.Fprintf(&b, "### sectax compare: %s — %s\n\n", strings.Join(refs, " vs "), mdEscape(Headlined(c.Headline, conclusionOf(c))))
	sides := sideInfos(c)
	b.WriteString("| |")
	for i := range sides {
		fmt.Fprintf(&b, " %s |", compare.SideLetter(i))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(sides)) + "\n")
	row := func(name string, cell func(s compare.SideInfo) string) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, s := range sides {
			fmt.Fprintf(&b, " %s |", cell(s))
		}
		b.WriteString("\n")
	}
	titled, sourced := false, false
	for _, s := range sides {
		titled = titled || s.Title != ""
		sourced = sourced || s.Source != ""
	}
	row("reference", func(s compare.SideInfo) string { return codeCell(s.Ref) })
	if titled {
		row("what", func(s compare.SideInfo) string { return mdEscape(s.Title) })
	}
	row("mitigations", func(s compare.SideInfo) string { return mdEscape(orUnknown(s.MitigationMode)) })
	row("kernel", func(s compare.SideInfo) string { return mdEscape(orUnknown(s.Kernel)) })
	row("runs", sideRuns)
	row("one sample is", func(s compare.SideInfo) string { return "one " + mdEscape(s.Unit) })
	if sourced {
		row("source", func(s compare.SideInfo) string { return mdEscape(s.Source) })
		row("environment", func(s compare.SideInfo) string { return mdEscape(s.Environment) })
	}

	b.WriteString("\n| workload | metric | A |")
	align := "|---|---|--:|"
	for i := range c.Comparisons {
		for _, col := range sideColumns {
			fmt.Fprintf(&b, " %s |", col.head(compare.SideLetter(i+1)))
			if col.right {
				align += "--:|"
			} else {
				align += "---|"
			}
		}
	}
	b.WriteString("\n" + align + "\n")
	for i, r := range c.Rows {
		t := ""
		if newWorkload(c.Rows, i) {
			t = codeCell(r.Workload.ID)
			if r.Workload.ParamsKey != "" {
				t += " " + mdEscape(r.Workload.ParamsKey)
			}
			if r.Workload.Control {
				t += " (negative control)"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |", t, mdEscape(r.Name), mdEscape(Value(r.Baseline, r.Unit, c.Baseline.Published)))
		for si, m := range r.Sides {
			for _, col := range sideColumns {
				v := mdEscape(col.cell(m, c.Comparisons[si].B.Published))
				if col.strong && marked(m) {
					v = "**" + v + "**"
				}
				fmt.Fprintf(&b, " %s |", v)
			}
		}
		b.WriteString("\n")
	}
	geo := "| **geomean** | primary metrics | |"
	hasGeo := false
	for _, rep := range c.Comparisons {
		g := geomeanCell(rep)
		if g != "" {
			hasGeo = true
			g = "**" + g + "**"
		}
		geo += " | " + g + " | |"
	}
	if hasGeo {
		b.WriteString(geo + "\n")
	}
	fmt.Fprintf(&b, "\n<sub>%s.</sub>\n", mdEscape(legendOf(c, false)))
	if l := bootShareLine(c); l != "" {
		fmt.Fprintf(&b, "\n<sub>%s.</sub>\n", mdEscape(l))
	}

	if len(opt.Images) > 0 {
		b.WriteString("\n#### Charts\n\n")
		for _, im := range opt.Images {
			fmt.Fprintf(&b, "![%s](%s)\n\n", mdAlt(im.Title+": "+im.Alt), mdLink(im.Path))
		}
	}
	for i, rep := range c.Comparisons {
		l := compare.SideLetter(i + 1)
		fmt.Fprintf(&b, "\n#### %s = %s against A = %s\n\n", l, code(rep.B.Ref), code(rep.A.Ref))
		fmt.Fprintf(&b, "%s.\n", mdEscape(capital(sideConclusion(l, rep.Conclusion, rep.Alpha))))
		if lines := Meaning(rep, l); len(lines) > 0 {
			b.WriteString("\n##### What this means\n\n")
			for _, line := range lines {
				fmt.Fprintf(&b, "- %s\n", mdEscape(line))
			}
		}
		for _, wl := range rep.Workloads {
			if len(wl.MetricsOnlyA)+len(wl.MetricsOnlyB) > 0 {
				fmt.Fprintf(&b, "\n%s: %s\n", code(wl.ID), mdEscape(onlyMetrics(wl, l)))
			}
		}
		mdUnmatched(&b, rep, l)
		mdEnv(&b, rep, "#####")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdUnmatched lists the workloads without a partner, side B named by
// letter l.
func mdUnmatched(b *strings.Builder, rep *compare.Report, l string) {
	if len(rep.OnlyA)+len(rep.OnlyB) == 0 {
		return
	}
	b.WriteString("\n**Not compared** (no partner on the other side):\n\n")
	for _, u := range rep.OnlyA {
		fmt.Fprintf(b, "- only in A: %s\n", code(u.String()))
	}
	for _, u := range rep.OnlyB {
		fmt.Fprintf(b, "- only in %s: %s\n", l, code(u.String()))
	}
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
	for _, c := range env.SpecControls {
		fmt.Fprintf(b, "- Per-process control (prctl) %s\n", mdEscape(c.String()))
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
