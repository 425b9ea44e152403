// Package safetext makes text that sectax did not write safe to show: run
// labels and environment values from a store or an import, and everything
// a lab guest sends (log and error frames, kernel messages). A terminal
// never gets a raw control character from it: no escape sequence (an OSC
// title, a cursor move, a line rewrite), no carriage return, no
// bidirectional control, no line or paragraph separator. It is the one sanitiser; internal/report's
// formats and internal/vm both use it.
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal or a JSON reader
// raw, from Go's Unicode tables rather than a list of our own: every
// control character (unicode.Cc: C0, DEL, and C1 with NEL U+0085 and CSI
// U+009B), every bidirectional control (unicode.Bidi_Control: the marks
// U+061C, U+200E and U+200F, the embeddings and overrides U+202A–U+202E,
// the isolates U+2066–U+2069) that reorders what is shown, and the line
// and paragraph separators (unicode.Zl U+2028, unicode.Zp U+2029) that
// break a line where the text has none (and end a JavaScript string).
func Unsafe(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	return unicode.In(r, unicode.Cc, unicode.Bidi_Control, unicode.Zl, unicode.Zp)
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

// Cell is Line for a cell of a CSV file a spreadsheet may open: a cell
// that begins with =, +, -, @, a tab or a carriage return is a formula to
// Excel, LibreOffice and Google Sheets, so it gets a leading single quote
// (OWASP's advice for CSV injection). Only text cells go through it: a
// number such as -12.3 is written as it is.
func Cell(s string) string {
	s = Line(s)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// JSON escapes, in encoded JSON, what encoding/json leaves raw but a
// terminal acts on: DEL, the C1 controls (U+0080–U+009F, CSI among them),
// the bidirectional controls and the line and paragraph separators (every
// rune Unsafe names) become \uXXXX, whatever the encoder's SetEscapeHTML.
// JSON's own syntax is ASCII, so these can only be inside strings, where
// \uXXXX decodes to the same character: the document means the same.
func JSON(b []byte) []byte {
	clean := true
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x7f && Unsafe(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x7f && Unsafe(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// JSONWriter writes encoded JSON through JSON. A character split over two
// writes is held until its end arrives; Flush writes what is held.
type JSONWriter struct {
	w    io.Writer
	held []byte
}

// NewJSONWriter returns a JSONWriter that writes to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

func (j *JSONWriter) Write(p []byte) (int, error) {
	b := append(j.held, p...)
	j.held = nil
	// Hold an incomplete character at the end (at most 3 bytes).
	for k := 1; k <= 3 && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				j.held = append([]byte(nil), b[len(b)-k:]...)
				b = b[:len(b)-k]
			}
			break
		}
	}
	if _, err := j.w.Write(JSON(b)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held incomplete character as it is.
func (j *JSONWriter) Flush() error {
	if len(j.held) == 0 {
		return nil
	}
	_, err := j.w.Write(j.held)
	j.held = nil
	return err
}
