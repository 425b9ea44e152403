package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/compare"
)

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
)

// cell is a table cell with an optional colour applied after alignment.
type cell struct {
	text  string
	color string
	right bool
}

// table lays out rows of cells in aligned columns; widths count runes, and
// colour codes are added after padding so that they do not skew them.
type table struct {
	rows [][]cell
	// starts are the columns (after the first, which names a row and is
	// repeated in each part of a table too wide: parts) where a group of
	// columns that belong together starts (nil: each column its own group).
	starts []int
}

func (t *table) add(cells ...cell) { t.rows = append(t.rows, cells) }

// width is the width of the widest row t.write writes.
func (t *table) width() int {
	widths := t.widths()
	n := 0
	for _, r := range t.rows {
		if len(r) == 1 {
			n = max(n, utf8.RuneCountInString(termSafe(r[0].text)))
			continue
		}
		sum := 2 * (len(r) - 1)
		for i := range r {
			sum += widths[i]
		}
		n = max(n, sum)
	}
	return n
}

// widths are the widths of t's columns.
func (t *table) widths() []int {
	var widths []int
	for _, r := range t.rows {
		if len(r) == 1 {
			continue // a spanning line
		}
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			if n := utf8.RuneCountInString(termSafe(c.text)); n > widths[i] {
				widths[i] = n
			}
		}
	}
	return widths
}

func (t *table) write(w io.Writer, color bool) error {
	for _, r := range t.rows {
		for i := range r {
			r[i].text = termSafe(r[i].text) // nothing raw reaches the terminal
		}
	}
	var b strings.Builder
	for i, part := range t.parts(widthOf(w)) {
		if i > 0 {
			b.WriteString("\n")
		}
		part.cut(widthOf(w))
		part.writeTo(&b, color)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// parts splits t, when its columns are wider than width, into tables
// that each fit it where they can: each with t's key column (the first)
// and as many of the other columns as fit, the
// columns of one group (t.starts) kept together where they fit beside
// the key columns. A row with nothing in a part's columns but the key
// is left out of it, but for a line that spans the table.
func (t *table) parts(width int) []*table {
	widths := t.widths()
	const keep = 1 // the key column
	if len(widths) <= keep+1 || colsWidth(widths, seq(0, len(widths))) <= width {
		return []*table{t}
	}
	keyW := colsWidth(widths, seq(0, keep))
	var groups [][]int
	starts := append(append([]int{}, t.starts...), len(widths))
	from := keep
	for _, s := range starts {
		if s > from && s <= len(widths) {
			groups = append(groups, seq(from, s))
			from = s
		}
	}
	if from < len(widths) {
		groups = append(groups, seq(from, len(widths)))
	}
	var cols [][]int
	var cur []int
	add := func(g []int) {
		if len(cur) > 0 && keyW+2+colsWidth(widths, append(append([]int{}, cur...), g...)) > width {
			cols, cur = append(cols, cur), nil
		}
		cur = append(cur, g...)
	}
	for _, g := range groups {
		if len(g) > 1 && keyW+2+colsWidth(widths, g) > width {
			for _, c := range g { // a group too wide on its own: its columns apart
				add([]int{c})
			}
			continue
		}
		add(g)
	}
	cols = append(cols, cur)
	var out []*table
	for _, cs := range cols {
		part := &table{}
		for _, r := range t.rows {
			if len(r) == 1 {
				part.rows = append(part.rows, r)
				continue
			}
			row, any := append([]cell{}, r[:min(keep, len(r))]...), false
			for len(row) < keep {
				row = append(row, cell{})
			}
			for _, c := range cs {
				ce := cell{}
				if c < len(r) {
					ce = r[c]
				}
				any = any || ce.text != ""
				row = append(row, ce)
			}
			if !any && strings.TrimSpace(cellsText(row[:keep])) == "" {
				continue
			}
			part.rows = append(part.rows, row)
		}
		// A spanning line with none of the part's rows under it (the
		// title of what another part holds) is left out too.
		var rows [][]cell
		for i, r := range part.rows {
			if len(r) == 1 && i > 0 && (i+1 == len(part.rows) || len(part.rows[i+1]) == 1) {
				continue
			}
			rows = append(rows, r)
		}
		part.rows = rows
		out = append(out, part)
	}
	return out
}

// cut shortens, in a table still wider than width once split (a column
// alone wider than what the key leaves: a long stored label, a workload
// name cut at the read limits), the widest column's cells with Fit until
// the table fits or no column is wider than minCut: text in a cell is
// never wrapped, so a cell sized by a stored field would widen every
// row. The whole field stays in --format json.
func (t *table) cut(width int) {
	const minCut = 12
	for range 8 {
		widths := t.widths()
		all := colsWidth(widths, seq(0, len(widths)))
		if all <= width {
			return
		}
		c := 0
		for i, x := range widths {
			if x > widths[c] {
				c = i
			}
		}
		to := max(widths[c]-(all-width), minCut)
		if to >= widths[c] {
			return
		}
		for _, r := range t.rows {
			if len(r) > 1 && c < len(r) {
				r[c].text = Fit(r[c].text, to)
			}
		}
	}
}

// colsWidth is the width of the columns cols of widths side by side.
func colsWidth(widths []int, cols []int) int {
	n := 2 * max(len(cols)-1, 0)
	for _, c := range cols {
		n += widths[c]
	}
	return n
}

func seq(from, to int) []int {
	var s []int
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func cellsText(cs []cell) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.text)
	}
	return b.String()
}

// writeTo writes t's rows (already made safe) in aligned columns.
func (t *table) writeTo(b *strings.Builder, color bool) {
	widths := t.widths()
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r {
			pad := 0
			if len(r) > 1 {
				pad = widths[i] - utf8.RuneCountInString(c.text)
			}
			text := c.text
			if color && c.color != "" {
				text = c.color + text + ansiReset
			}
			if i > 0 {
				line.WriteString("  ")
			}
			switch {
			case c.right:
				line.WriteString(strings.Repeat(" ", pad) + text)
			case i == len(r)-1:
				line.WriteString(text)
			default:
				line.WriteString(text + strings.Repeat(" ", pad))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

func verdictColor(v string) string {
	switch v {
	case compare.VerdictBetter:
		return ansiGreen
	case compare.VerdictWorse:
		return ansiRed
	}
	return ""
}

// Text writes a comparison of two or more sides for a terminal: the
// conclusion, the sides, a row per workload and metric with a column per
// side (A, the baseline, first) and each other side's change against A,
// the geometric means; then a section per side: its conclusion, what it
// means and what differs from A.
func Text(w io.Writer, c *compare.Comparison, opt Options) error {
	paint := func(code, s string) string {
		if opt.Color {
			return code + s + ansiReset
		}
		return s
	}
	ts := termSafe
	b := newTextBuf(w)
	for _, l := range wrap(Headlined(c.Headline, capital(conclusionOf(c))+"."), "", "  ", b.width) {
		fmt.Fprintf(b, "%s\n", paint(ansiBold, l))
	}
	textSides(b, c, "")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	b.Reset()
	if err := textTable(w, c, opt.Color); err != nil {
		return err
	}
	if l := bootShareLine(c); l != "" {
		writeForeign(b, termSafe(l), l, "", "  ")
	}
	for i, rep := range c.Comparisons {
		l := compare.SideLetter(i + 1)
		fmt.Fprintf(b, "\n%s\n", paint(ansiBold, fmt.Sprintf("%s = %s against A = %s", l, ts(rep.B.Ref), ts(rep.A.Ref))))
		writeWrapped(b, capital(sideConclusion(l, rep.Conclusion, rep.Alpha))+".", "  ", "    ")
		if lines := Meaning(rep, l); len(lines) > 0 {
			b.WriteString("  What this means:\n")
			for _, line := range lines {
				writeForeign(b, ts(line), line, "    - ", "      ")
			}
		}
		textUnmatched(b, rep, l, "  ")
		for _, wl := range rep.Workloads {
			if len(wl.MetricsOnlyA)+len(wl.MetricsOnlyB) > 0 {
				s := wl.Title() + ": " + onlyMetrics(wl, l)
				writeForeign(b, ts(s), s, "  ", "    ")
			}
		}
		b.WriteString("  Environment differences:\n")
		textEnv(b, rep, paint, "  ")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// textSides names the sides by letter, each with its description, and
// explains the columns (legendOf), each line indented by ind.
func textSides(b *textBuf, c *compare.Comparison, ind string) {
	ts := termSafe
	b.WriteString(ind + "sectax compare:")
	for i, ref := range c.Sides() {
		sep := "  "
		if i == 0 {
			sep = " "
		}
		fmt.Fprintf(b, "%s%s = %s", sep, compare.SideLetter(i), ts(ref))
	}
	b.WriteString("\n")
	for i, s := range sideInfos(c) {
		l := compare.SideLetter(i)
		writeForeign(b, ts(sideLine(s)), sideLine(s), ind+"  "+l+"  ", ind+strings.Repeat(" ", 4+utf8.RuneCountInString(l)))
	}
	writeWrapped(b, legendOf(c, false), ind+"  ", ind+"  ")
	b.WriteString("\n")
}

// textTable writes the one table of a comparison of any number of sides
// (compare, the lab matrix): a row per workload and metric, a column per
// side with its median and, but for A, its change against A; the
// geometric means last. A table wider than TextWidth says each change's
// interval on a line of its own under the change, and the geometric
// means under their title.
func textTable(w io.Writer, c *compare.Comparison, color bool) error {
	t := buildTextTable(c, false)
	if t.width() <= widthOf(w) {
		return t.write(w, color)
	}
	// The narrow table, split if still too wide, and the geometric means
	// under it as prose.
	if err := buildTextTable(c, true).write(w, color); err != nil {
		return err
	}
	var geo []string
	for i, rep := range c.Comparisons {
		if g := geomeanCell(rep); g != "" {
			geo = append(geo, compare.SideLetter(i+1)+" "+g)
		}
	}
	if len(geo) > 0 {
		writeWrapped(w, "geomean of the primary speedups: "+strings.Join(geo, ", "), "", "  ")
	}
	return nil
}

func buildTextTable(c *compare.Comparison, narrow bool) *table {
	var t table
	head := []cell{{text: "workload / metric"}, {text: "A", right: true}}
	for i := range c.Comparisons {
		// Each side's columns together, A's apart: a table too wide splits
		// between them (table.parts).
		t.starts = append(t.starts, len(head))
		for _, col := range sideColumns {
			head = append(head, cell{text: col.head(compare.SideLetter(i + 1)), right: col.right})
		}
	}
	t.add(head...)
	for i, r := range c.Rows {
		if newWorkload(c.Rows, i) {
			t.add(cell{text: rowTitle(r)})
		}
		row := []cell{{text: "  " + r.Name}, {text: Value(r.Baseline, r.Unit, c.Baseline.Published), right: true}}
		under := []cell{{text: ""}, {text: ""}} // narrow: the intervals of the changes
		hasUnder := false
		for si, m := range r.Sides {
			mc := ""
			if m != nil {
				mc = verdictColor(m.Verdict)
			}
			for _, col := range sideColumns {
				ce := cell{text: col.cell(m, c.Comparisons[si].B.Published), right: col.right}
				below := cell{}
				if narrow && col.strong && m != nil {
					if iv := changeInterval(*m); iv != "" {
						ce.text = strings.Replace(ce.text, " "+iv, "", 1)
						below.text, hasUnder = iv, true
					}
				}
				if col.color {
					ce.color = mc
				}
				row = append(row, ce)
				under = append(under, below)
			}
		}
		t.add(row...)
		if hasUnder {
			t.add(under...)
		}
	}
	if narrow {
		return &t // the geometric means under it (textTable)
	}
	title := "geomean of the primary speedups"
	geo := []cell{{text: title}, {text: ""}}
	hasGeo := false
	for _, rep := range c.Comparisons {
		g := geomeanCell(rep)
		hasGeo = hasGeo || g != ""
		geo = append(geo, cell{text: ""}, cell{text: g}, cell{text: ""})
	}
	if hasGeo {
		t.add(geo...)
	}
	return &t
}

// textUnmatched lists the workloads without a partner, side B named by
// letter l, each line indented by ind.
func textUnmatched(b *textBuf, rep *compare.Report, l, ind string) {
	if len(rep.OnlyA)+len(rep.OnlyB) == 0 {
		return
	}
	b.WriteString(ind + "Unmatched workloads (not compared):\n")
	for _, u := range rep.OnlyA {
		writeForeign(b, termSafe(u.String()), u.String(), ind+"  only in A: ", ind+"    ")
	}
	for _, u := range rep.OnlyB {
		writeForeign(b, termSafe(u.String()), u.String(), ind+"  only in "+l+": ", ind+"    ")
	}
}

// textEnv writes the environment differences, notes and warnings of a
// comparison, each line indented by ind.
func textEnv(b *textBuf, rep *compare.Report, paint func(code, s string) string, ind string) {
	ts := termSafe
	env := rep.Env
	if env.CmdlineKnown {
		writeWrapped(b, fmt.Sprintf("kernel command line: added %s; removed %s", tokens(env.CmdlineAdded), tokens(env.CmdlineRemoved)), ind+"  ", ind+"    ")
	} else {
		b.WriteString(ind + "  kernel command line: unknown on a side\n")
	}
	for _, c := range env.SpecControls {
		fmt.Fprintf(b, ind+"  per-process control (prctl) %s\n", ts(c.String()))
	}
	if len(env.Vulnerabilities) == 0 {
		b.WriteString(ind + "  vulnerabilities: no change known\n")
	} else {
		b.WriteString(ind + "  vulnerabilities:\n")
		for _, v := range env.Vulnerabilities {
			writeForeign(b, ts(v.String()), v.String(), ind+"    ", ind+"      ")
			if v.OneLiner != "" { // or the hint for a file the knowledge base lacks
				writeForeign(b, ts(v.OneLiner), v.OneLiner, ind+"      ", ind+"      ")
			}
		}
	}
	if len(env.Confounders) == 0 {
		b.WriteString(ind + "  confounders: none found (unknown values are not compared)\n")
	} else {
		fmt.Fprintf(b, ind+"  %s\n", paint(ansiYellow, "confounders (differ besides the mitigations):"))
		for _, c := range env.Confounders {
			l := fmt.Sprintf("%s: %s → %s", c.Name, c.A, c.B)
			writeForeign(b, ts(l), l, ind+"    ", ind+"      ")
		}
	}
	if len(rep.Notes) > 0 {
		b.WriteString("\n" + ind + "Notes:\n")
		for _, n := range rep.Notes {
			writeForeign(b, ts(n), n, ind+"  ", ind+"    ")
		}
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintf(b, "\n%s%s\n", ind, paint(ansiYellow, "Warnings:"))
		for _, x := range rep.Warnings {
			writeForeign(b, ts(x.Message), x.Message, ind+"  - ", ind+"    ")
		}
	}
}

func tokens(ts []string) string {
	if len(ts) == 0 {
		return "nothing"
	}
	return strings.Join(termSafeAll(ts), " ")
}

// onlyMetrics names the metrics of a workload that only A or only the
// side l has.
func onlyMetrics(wl compare.Workload, l string) string {
	var parts []string
	if len(wl.MetricsOnlyA) > 0 {
		parts = append(parts, "only A has "+strings.Join(wl.MetricsOnlyA, ", "))
	}
	if len(wl.MetricsOnlyB) > 0 {
		parts = append(parts, "only "+l+" has "+strings.Join(wl.MetricsOnlyB, ", "))
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// Table is a plain aligned table for the CLI's listings.
type Table struct{ t table }

// NewTable returns an empty table.
func NewTable() *Table { return &Table{} }

// Row adds a row of cells, left-aligned.
func (t *Table) Row(cells ...string) {
	var cs []cell
	for _, c := range cells {
		cs = append(cs, cell{text: c})
	}
	t.t.rows = append(t.t.rows, cs)
}

// Line adds a line that spans the table and does not set column widths.
func (t *Table) Line(s string) { t.t.rows = append(t.t.rows, []cell{{text: s}}) }

// Write lays the table out.
func (t *Table) Write(w io.Writer, color bool) error { return t.t.write(w, color) }
