package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

// MarkdownMulti writes a comparison of three or more sides as
// GitHub-flavoured Markdown: the sides, a table with a row per workload and
// metric and a column per side, then each side's differences from A.
func MarkdownMulti(w io.Writer, mr *compare.MultiReport, opt MarkdownOptions) error {
	var b strings.Builder
	var refs []string
	for _, r := range mr.Sides() {
		refs = append(refs, code(r))
	}
	fmt.Fprintf(&b, "### sectax compare: %s — %s\n\n", strings.Join(refs, " vs "), mdEscape(Headlined(mr.Headline, capital(MultiConclusion(mr)))))
	sides := append([]compare.SideInfo{mr.Baseline}, func() []compare.SideInfo {
		var out []compare.SideInfo
		for _, rep := range mr.Comparisons {
			out = append(out, rep.B)
		}
		return out
	}()...)
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
	row("reference", func(s compare.SideInfo) string { return codeCell(s.Ref) })
	titled := false
	for _, s := range sides {
		titled = titled || s.Title != ""
	}
	if titled {
		row("what", func(s compare.SideInfo) string { return mdEscape(s.Title) })
	}
	row("mitigations", func(s compare.SideInfo) string { return mdEscape(orUnknown(s.MitigationMode)) })
	row("kernel", func(s compare.SideInfo) string { return mdEscape(orUnknown(s.Kernel)) })
	row("runs", sideRuns)
	row("one sample is", func(s compare.SideInfo) string { return "one " + mdEscape(s.Unit) })

	b.WriteString("\n| workload | metric | A |")
	for i := range mr.Comparisons {
		l := compare.SideLetter(i + 1)
		fmt.Fprintf(&b, " %s | %s vs A |", l, l)
	}
	b.WriteString("\n|---|---|--:|" + strings.Repeat("--:|---|", len(mr.Comparisons)) + "\n")
	last := ""
	for _, r := range mr.Rows {
		title := codeCell(r.Workload.ID)
		if r.Workload.ParamsKey != "" {
			title += " " + mdEscape(r.Workload.ParamsKey)
		}
		if r.Workload.Control {
			title += " (negative control)"
		}
		t := title
		if title == last {
			t = ""
		}
		last = title
		fmt.Fprintf(&b, "| %s | %s | %s |", t, mdEscape(r.Name), mdEscape(Value(r.Baseline, r.Unit, mr.Baseline.Published)))
		for i, m := range r.Sides {
			change := mdEscape(changeCell(m))
			if m != nil && (m.Verdict == compare.VerdictBetter || m.Verdict == compare.VerdictWorse) {
				change = "**" + change + "**"
			}
			fmt.Fprintf(&b, " %s | %s |", mdEscape(valueCell(m, mr.Comparisons[i].B.Published)), change)
		}
		b.WriteString("\n")
	}
	geo := "| **geomean** | primary metrics | |"
	hasGeo := false
	for _, rep := range mr.Comparisons {
		g := geomeanCell(rep)
		if g != "" {
			hasGeo = true
			g = "**" + g + "**"
		}
		geo += " | " + g + " |"
	}
	if hasGeo {
		b.WriteString(geo + "\n")
	}
	fmt.Fprintf(&b, "\n<sub>%s.</sub>\n", mdEscape(multiLegend(mr)))

	if len(opt.Images) > 0 {
		b.WriteString("\n#### Charts\n\n")
		for _, im := range opt.Images {
			fmt.Fprintf(&b, "![%s](%s)\n\n", mdAlt(im.Title+": "+im.Alt), mdLink(im.Path))
		}
	}
	for i, rep := range mr.Comparisons {
		l := compare.SideLetter(i + 1)
		fmt.Fprintf(&b, "\n#### %s = %s against A = %s\n\n", l, code(rep.B.Ref), code(rep.A.Ref))
		fmt.Fprintf(&b, "%s. What this means, charts and every p-value: %s.\n", mdEscape(capital(sideConclusion(l, rep.Conclusion))), code(detailHint(rep)))
		if len(rep.OnlyA)+len(rep.OnlyB) > 0 {
			b.WriteString("\n**Not compared** (no partner on the other side):\n\n")
			for _, u := range rep.OnlyA {
				fmt.Fprintf(&b, "- only in A: %s\n", code(u.String()))
			}
			for _, u := range rep.OnlyB {
				fmt.Fprintf(&b, "- only in %s: %s\n", l, code(u.String()))
			}
		}
		mdEnv(&b, rep, "#####")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
