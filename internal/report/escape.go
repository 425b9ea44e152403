package report

import (
	"io"
	"strings"

	"github.com/sectax/sectax/internal/safetext"
)

// Text from runs, imports and the machine (labels, run ids, workload and
// metric names, units, parameters, environment values) may hold anything.
// Every format escapes it where it is laid out: the terminal never gets a
// raw control character, Markdown never gets a line break or markup from
// it; HTML escapes through html/template, JSON through encoding/json.

// unsafeRune reports whether r must not reach a terminal raw
// (safetext.Unsafe, the one sanitiser's rule).
func unsafeRune(r rune) bool { return safetext.Unsafe(r) }

// termSafe escapes what must not reach a terminal raw: a control
// character becomes \xNN (\u202e and the like for the others), a byte
// that is not UTF-8 becomes U+FFFD (safetext.Line).
func termSafe(s string) string { return safetext.Line(s) }

// escapeControls is termSafe; keepLines keeps line breaks and tabs (for a
// whole document whose own layout uses them).
func escapeControls(s string, keepLines bool) string {
	if keepLines {
		return safetext.Text(s)
	}
	return safetext.Line(s)
}

// termSafeAll applies termSafe to each string.
func termSafeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = termSafe(s)
	}
	return out
}

// mdLine makes text one line of plain Markdown: line breaks and tabs
// become spaces, other control characters are escaped.
func mdLine(s string) string {
	return termSafe(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s))
}

// mdEscape makes text safe as Markdown inline text, in a table cell too:
// one line, and no character that would start markup (emphasis, code,
// links, HTML, a cell boundary). An underscore inside a word is not
// emphasis on GitHub, and ">" quotes only at the start of a line, so
// names such as usecs_per_op and "need >= 6" stay as they are.
func mdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "`", "\\`", "|", `\|`, "*", `\*`, "[", `\[`, "]", `\]`,
		"<", "&lt;").Replace(mdLine(s))
}

// code renders a Markdown code span that holds s verbatim (on one line):
// the fence is one backtick longer than the longest run inside.
func code(s string) string {
	s = mdLine(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || longest > 0 && (strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ")) {
		s = " " + s + " "
	}
	return fence + s + fence
}

// codeCell is code for a table cell: a | would end the cell even inside a
// code span, so it is escaped (GitHub shows it as |).
func codeCell(s string) string { return strings.ReplaceAll(code(s), "|", `\|`) }

// csvCell is a text cell of a CSV file: escaped, and a formula neutralised
// (safetext.Cell). Numbers are not passed through it.
func csvCell(s string) string { return safetext.Cell(s) }

// plainText lays out a plain-text document (one without colour) through
// the one sanitiser as a whole: render writes it, and what reaches w has
// no control character but line breaks and tabs (safetext.Text). The
// renderers also escape each foreign field (termSafe), so that a line
// break in one cannot forge a line; this is the net under them.
func plainText(w io.Writer, render func(w io.Writer) error) error {
	b := newTextBuf(w)
	err := render(b)
	if _, werr := io.WriteString(w, safetext.Text(b.String())); err == nil {
		err = werr
	}
	return err
}

// ErrorLine is the one line of an error message: line breaks and runs of
// space folded into one space, and what is left of the control characters
// escaped, since an error may quote a stored field, an imported document
// or a file below --root.
func ErrorLine(msg string) string { return termSafe(strings.Join(strings.Fields(msg), " ")) }

// Notice is a notice or status line the CLI prints to standard error:
// what it quotes from a store, a document or a file below --root has its
// control characters escaped; its own line breaks and tabs are kept
// (safetext.Text).
func Notice(s string) string { return safetext.Text(s) }
