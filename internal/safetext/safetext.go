// Package safetext makes text that sectax did not write safe to show: run
// labels and environment values from a store or an import, and everything
// a lab guest sends (log and error frames, kernel messages). A terminal
// never gets a raw control character from it: no escape sequence (an OSC
// title, a cursor move, a line rewrite), no carriage return, no
// bidirectional override. It is the one sanitiser; internal/report's
// formats and internal/lab both use it.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal raw: C0 and C1
// control characters, DEL, and the bidirectional overrides and isolates
// that reorder what is shown.
func Unsafe(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}

// Line makes s one safe line: a control character (line breaks and tabs
// too) becomes \xNN (\u202e and the like for the others), a byte that is
// not UTF-8 becomes U+FFFD.
func Line(s string) string { return escape(s, false) }

// Text is Line that keeps line breaks and tabs, for a whole document whose
// own layout uses them.
func Text(s string) string { return escape(s, true) }

// Clip is Line cut to at most max bytes (on a rune boundary, "…" marking
// the cut), for text of unbounded length that goes into one line of an
// error.
func Clip(s string, max int) string {
	s = Line(s)
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if cut < 0 {
		cut = 0
	}
	return s[:cut] + "…"
}

func escape(s string, keepLines bool) string {
	unsafe := func(r rune) bool { return Unsafe(r) && !(keepLines && (r == '\n' || r == '\t')) }
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r < 0x80 && unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
