package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

// TextMulti writes a comparison of three or more sides for a terminal: a
// row per workload and metric, a column per side (A, the baseline, first),
// each other side's change against A; then, side by side, what differs
// from A.
func TextMulti(w io.Writer, mr *compare.MultiReport, opt Options) error {
	paint := func(code, s string) string {
		if opt.Color {
			return code + s + ansiReset
		}
		return s
	}
	ts := termSafe
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", paint(ansiBold, Headlined(mr.Headline, capital(MultiConclusion(mr))+".")))
	b.WriteString("sectax compare:")
	for i, ref := range mr.Sides() {
		sep := "  "
		if i == 0 {
			sep = " "
		}
		fmt.Fprintf(&b, "%s%s = %s", sep, compare.SideLetter(i), ts(ref))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  A  %s\n", ts(sideLine(mr.Baseline)))
	for i, rep := range mr.Comparisons {
		fmt.Fprintf(&b, "  %s  %s\n", compare.SideLetter(i+1), ts(sideLine(rep.B)))
	}
	fmt.Fprintf(&b, "  %s\n\n", multiLegend(mr))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	b.Reset()

	var t table
	head := []cell{{text: "workload / metric"}, {text: "A", right: true}}
	for i := range mr.Comparisons {
		l := compare.SideLetter(i + 1)
		head = append(head, cell{text: l, right: true}, cell{text: l + " vs A"})
	}
	t.add(head...)
	last := ""
	for _, r := range mr.Rows {
		if title := rowTitle(r); title != last {
			t.add(cell{text: title})
			last = title
		}
		row := []cell{{text: "  " + r.Name}, {text: Value(r.Baseline, r.Unit, mr.Baseline.Published), right: true}}
		for i, m := range r.Sides {
			color := ""
			if m != nil {
				color = verdictColor(m.Verdict)
			}
			row = append(row, cell{text: valueCell(m, mr.Comparisons[i].B.Published), right: true},
				cell{text: changeCell(m), color: color})
		}
		t.add(row...)
	}
	geo := []cell{{text: "geomean of the primary speedups"}, {text: ""}}
	hasGeo := false
	for _, rep := range mr.Comparisons {
		g := geomeanCell(rep)
		hasGeo = hasGeo || g != ""
		geo = append(geo, cell{text: ""}, cell{text: g})
	}
	if hasGeo {
		t.add(geo...)
	}
	if err := t.write(w, opt.Color); err != nil {
		return err
	}
	for i, rep := range mr.Comparisons {
		l := compare.SideLetter(i + 1)
		fmt.Fprintf(&b, "\n%s\n", paint(ansiBold, fmt.Sprintf("%s = %s against A = %s", l, ts(rep.B.Ref), ts(rep.A.Ref))))
		fmt.Fprintf(&b, "  %s.\n", capital(sideConclusion(l, rep.Conclusion)))
		fmt.Fprintf(&b, "  (what this means, charts and every p: %s)\n", ts(detailHint(rep)))
		if len(rep.OnlyA)+len(rep.OnlyB) > 0 {
			b.WriteString("  Unmatched workloads (not compared):\n")
			for _, u := range rep.OnlyA {
				fmt.Fprintf(&b, "    only in A: %s\n", ts(u.String()))
			}
			for _, u := range rep.OnlyB {
				fmt.Fprintf(&b, "    only in %s: %s\n", l, ts(u.String()))
			}
		}
		b.WriteString("  Environment differences:\n")
		textEnv(&b, rep, paint, "  ")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
