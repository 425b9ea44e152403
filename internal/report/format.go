package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/stats"
)

// Options configure rendering.
type Options struct {
	// Color allows ANSI colours (text only).
	Color bool
	// Images are charts written beside the report (sectax compare --png);
	// the Markdown report links them.
	Images []Image
	// Width is the text's widest line in columns (text only; 0: the
	// width the writer carries, WithWidth, else TextWidth).
	Width int
}

// Num renders a value: thousands grouped from 1000 up ("5,353,135"), else
// four significant digits ("0.1868", "8.12", "1.682").
func Num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "?"
	case math.IsInf(v, 0):
		return "∞"
	case math.Abs(v) >= 1000:
		return group(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "−" + b.String()
	}
	return b.String()
}

// WithUnit renders a value and its unit ("8.12 µs/op", "395%"). The unit
// is as given: each format escapes it.
func WithUnit(v float64, unit string) string {
	if unit == "%" {
		return Num(v) + "%"
	}
	return Num(v) + " " + unit
}

// Interval renders a summary's confidence interval as a relative
// half-width, as benchstat does ("±1.2%", "±∞" without an interval, ""
// for a published figure).
func Interval(s stats.Summary, published bool) string {
	switch {
	case published:
		return ""
	case !s.HasCI:
		return "±∞"
	}
	r := s.RelSpread() * 100
	if r < 10 {
		return fmt.Sprintf("±%.1f%%", r)
	}
	return fmt.Sprintf("±%.0f%%", r)
}

// Value renders a median, its unit and interval ("8.12 µs/op ±1.2%").
func Value(s stats.Summary, unit string, published bool) string {
	v := WithUnit(s.Center, unit)
	if iv := Interval(s, published); iv != "" {
		v += " " + iv
	}
	return v
}

// Speedup renders "2.76×".
func Speedup(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.2f×", x)
}

// P renders the raw p-value ("0.002", "<0.001"), "–" when untested.
func P(m compare.Metric) string {
	if m.Test == nil {
		return none
	}
	return pValue(m.Test.P)
}

// PAdj renders the p-value after the correction for multiple testing, "–"
// when untested.
func PAdj(m compare.Metric) string {
	if m.PAdjusted == nil {
		return none
	}
	return pValue(*m.PAdjusted)
}

func pValue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// N renders the sample sizes ("6+6").
func N(m compare.Metric) string { return fmt.Sprintf("%d+%d", m.A.N, m.B.N) }

// sideLine describes a side in one line.
func sideLine(s compare.SideInfo) string {
	var parts []string
	if s.Title != "" {
		parts = append(parts, s.Title)
	}
	switch s.Kind {
	case compare.KindBaseline:
		parts = append(parts, "published figures")
	default:
		n := fmt.Sprintf("%d run", len(s.Runs))
		if len(s.Runs) != 1 {
			n += "s"
		}
		b := fmt.Sprintf("%d boot", s.Boots)
		if s.Boots != 1 {
			b += "s"
		}
		parts = append(parts, n+", "+b+", a sample is one "+s.Unit)
	}
	parts = append(parts, "mitigations "+orUnknown(s.MitigationMode))
	parts = append(parts, "kernel "+orUnknown(s.Kernel))
	if len(s.Hosts) > 0 {
		parts = append(parts, "host "+strings.Join(s.Hosts, ", "))
	}
	return strings.Join(parts, "; ")
}

func orUnknown(v []string) string {
	if len(v) == 0 {
		return "unknown"
	}
	return strings.Join(v, " | ")
}

// TextWidth is the widest line, in runes, of the text sectax prints for
// people when it knows no other width (not a terminal, no $COLUMNS):
// what does not fit is wrapped with an indent, a table too wide is split.
const TextWidth = 100

// MinWidth is the narrowest width text is laid out for: below it a
// table's key column and one value no longer fit side by side.
const MinWidth = 40

// The width of text travels with the writer it is written to: the text
// renderers take an io.Writer, and the one wrapped by WithWidth says how
// wide a line may be to every helper that writes to it (writeWrapped,
// the tables), and to the buffers a renderer builds (newTextBuf).

// widther is a writer that knows the width of its lines.
type widther interface{ TextWidth() int }

// widthWriter is a writer with a width (WithWidth).
type widthWriter struct {
	io.Writer
	width int
}

func (w widthWriter) TextWidth() int { return w.width }

// WithWidth is w with lines at most width columns wide for the text
// written to it (width <= 0: w as it is; below MinWidth: MinWidth).
func WithWidth(w io.Writer, width int) io.Writer {
	if width <= 0 {
		return w
	}
	return widthWriter{Writer: w, width: max(width, MinWidth)}
}

// widthOf is the width of the lines written to w: its WithWidth, else
// TextWidth.
func widthOf(w io.Writer) int {
	if x, ok := w.(widther); ok && x.TextWidth() > 0 {
		return x.TextWidth()
	}
	return TextWidth
}

// textBuf is a buffer a text renderer builds before it writes, with the
// width of the writer it is for.
type textBuf struct {
	strings.Builder
	width int
}

func (b *textBuf) TextWidth() int { return b.width }

// newTextBuf is a buffer for text written to w, at w's width.
func newTextBuf(w io.Writer) *textBuf { return &textBuf{width: widthOf(w)} }

// wrap breaks s at spaces into lines of at most width runes, the first
// starting with first and the others with rest (an indent). A word longer
// than a line is kept whole on a line of its own: a break inside a word
// could start a line with text a file or a stored run chose. Runs of
// spaces are kept inside a line and dropped where it breaks.
func wrap(s, first, rest string, width int) []string {
	var out []string
	line, empty := first, true // empty: nothing but the indent yet
	for _, word := range strings.Split(s, " ") {
		if word == "" {
			if !empty {
				line += " "
			}
			continue
		}
		if !empty && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			out = append(out, strings.TrimRight(line, " "))
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	return append(out, strings.TrimRight(line, " "))
}

// Fit cuts s to at most width runes, ending it with "…" where it was cut:
// for a line that must stay one row, as a progress line redrawn with \r.
// It is the one cutter of text (Clip makes a stored field safe first).
func Fit(s string, width int) string {
	if width < 1 || len(s) <= width || utf8.RuneCountInString(s) <= width {
		return s
	}
	n := 0
	for i := range s {
		if n == width-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// writeWrapped writes s wrapped by wrap at w's width, one line each.
func writeWrapped(w io.Writer, s, first, rest string) {
	for _, l := range wrap(s, first, rest, widthOf(w)) {
		fmt.Fprintln(w, l)
	}
}

// writeTableWrapped lays out rows (already made safe) in aligned columns,
// the last of which, prose, wraps at its spaces under its own column so
// that the table fits w's width; where that column would start past
// width-40, or a word of it would not fit beside the row, its text goes
// under the row instead, indented by 4 more; where even the columns
// before it do not fit, each row is a record of "header: cell" lines.
// raw[i] is what row i's last cell was made from (writeForeign's rule).
func writeTableWrapped(w io.Writer, rows [][]string, raw []string) {
	if len(rows) == 0 {
		return
	}
	n := len(rows[0]) - 1
	widths := make([]int, n)
	for _, r := range rows {
		for i, c := range r[:n] {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	lead := 0
	for _, x := range widths {
		lead += x + 2
	}
	if lead > widthOf(w) && len(rows) > 1 {
		// Even the columns before the prose are too wide: each row as a
		// record under its first cell, a line per column named by the
		// header (rows[0]).
		head := rows[0]
		for i, r := range rows[1:] {
			fmt.Fprintln(w, strings.TrimRight(r[0], " "))
			ind := strings.Repeat(" ", 2+len(r[0])-len(strings.TrimLeft(r[0], " ")))
			for j := 1; j < n; j++ {
				writeWrapped(w, r[j], ind+strings.TrimSpace(head[j])+": ", ind+"  ")
			}
			writeForeign(w, r[n], raw[i+1], ind+strings.TrimSpace(head[n])+": ", ind+"  ")
		}
		return
	}
	for i, r := range rows {
		var b strings.Builder
		for j, c := range r[:n] {
			b.WriteString(c + strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)+2))
		}
		first, last := b.String(), r[n]
		longest := 0 // a word wider than what is left beside the row goes under it
		for _, f := range strings.Fields(last) {
			longest = max(longest, utf8.RuneCountInString(f))
		}
		if lead > widthOf(w)-40 || lead+longest > widthOf(w) {
			fmt.Fprintln(w, strings.TrimRight(first, " "))
			ind := strings.Repeat(" ", 4+len(first)-len(strings.TrimLeft(first, " ")))
			writeForeign(w, last, raw[i], ind, ind)
			continue
		}
		writeForeign(w, last, raw[i], first, strings.Repeat(" ", lead))
	}
}

// Prose writes s, one paragraph, wrapped at its spaces to w's width
// (WithWidth), its later lines indented by two.
func Prose(w io.Writer, s string) error {
	ew := &errWriter{w: w}
	writeForeign(ew, termSafe(s), s, "", "  ")
	return ew.err
}

// writeLabelled writes label and then cmd, a line to copy, on one line
// when they fit w's width, else cmd whole on a line of its own after
// label, indented by ind.
func writeLabelled(w io.Writer, label, cmd, ind string) {
	if l := label + " " + cmd; utf8.RuneCountInString(l) <= widthOf(w) {
		fmt.Fprintln(w, l)
		return
	}
	fmt.Fprintf(w, "%s\n%s%s\n", strings.TrimRight(label, " "), ind, cmd)
}

// writeQuoting writes s, made safe from raw, as writeForeign does, but
// never breaks inside a "quoted" part that holds an escape (a file's line
// quoted with %q: a break there would start a line with words the file
// chose).
func writeQuoting(w io.Writer, s, raw, first, rest string) {
	const keep = "\uE000" // stands for a space inside quotes while wrapping
	if strings.Contains(s, keep) {
		writeForeign(w, s, raw, first, rest)
		return
	}
	// Only a quoted part that holds an escape (\n, \x1b: %q's or
	// termSafe's) is kept whole: one without is plain words.
	var b strings.Builder
	parts := strings.Split(s, `"`)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(`"`)
		}
		if i%2 == 1 && strings.Contains(p, `\`) {
			p = strings.ReplaceAll(p, " ", keep)
		}
		b.WriteString(p)
	}
	if termSafe(raw) != raw {
		fmt.Fprintln(w, first+s)
		return
	}
	for _, l := range wrap(b.String(), first, rest, widthOf(w)) {
		fmt.Fprintln(w, strings.ReplaceAll(l, keep, " "))
	}
}

// writeForeign writes s, made safe from raw, as writeWrapped does; but on
// one line when raw holds what termSafe escapes: text like that was
// written to mislead, and a break at one of its spaces would start a line
// with words its writer chose.
func writeForeign(w io.Writer, s, raw, first, rest string) {
	if termSafe(raw) != raw {
		fmt.Fprintln(w, first+s)
		return
	}
	writeWrapped(w, s, first, rest)
}
