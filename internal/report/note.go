package report

import (
	"strings"
	"unicode/utf8"
)

// NoteText is a note to the user as sectax says it on standard error:
// "sectax: " and the note, made safe to show (Notice), wrapped at its
// spaces to width (TextWidth when width < 1) with its later lines
// indented by two. A span in backquotes (a command or a flag to copy) is
// never broken, and a note holding text sectax did not write that had to
// be escaped stays whole on its line (writeForeign's rule). A line break
// in the note starts a new line, its own indent kept. The result ends
// with a newline.
func NoteText(note string, width int) string {
	if width < 1 {
		width = TextWidth
	}
	raw := strings.Split(note, "\n")
	var b strings.Builder
	for i, line := range strings.Split(Notice(note), "\n") {
		first := ""
		if i == 0 {
			first = "sectax: "
		}
		body := strings.TrimLeft(line, " ")
		ind := line[:len(line)-len(body)]
		if i >= len(raw) || termSafe(raw[i]) != raw[i] || utf8.RuneCountInString(first+line) <= width {
			b.WriteString(first + line + "\n")
			continue
		}
		for _, l := range wrap(keepQuoted(body), first+ind, ind+"  ", width) {
			b.WriteString(strings.ReplaceAll(l, quotedSpace, " ") + "\n")
		}
	}
	return b.String()
}

// quotedSpace stands for a space inside backquotes while a note is
// wrapped (a character Notice never lets through).
const quotedSpace = "\x00"

// keepQuoted joins each backquoted span of s into one word for wrap.
func keepQuoted(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // an unmatched backquote: nothing to keep
		return s
	}
	for i := 1; i < len(parts); i += 2 {
		parts[i] = strings.ReplaceAll(parts[i], " ", quotedSpace)
	}
	return strings.Join(parts, "`")
}
