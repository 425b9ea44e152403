package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain µs/op":           "plain µs/op",
		"a\x1b[31mred":          `a\x1b[31mred`,
		"\x1b]0;owned\x07title": `\x1b]0;owned\x07title`,
		"line\rrewrite\x1b[2K":  `line\x0drewrite\x1b[2K`,
		"two\nlines":            `two\x0alines`,
		"c1\u009b2J":            `c1\u009b2J`,
		"rtl\u202eevil":         `rtl\u202eevil`,
		"alm\u061cmark":         `alm\u061cmark`,
		"ls\u2028ps\u2029":      `ls\u2028ps\u2029`,
		"nel\u0085":             `nel\u0085`,
		"fsi\u2068x\u2069":      `fsi\u2068x\u2069`,
		"bad\xffutf8":           "bad\uFFFDutf8",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Text("a\tb\nc\x1b"); got != "a\tb\nc\\x1b" {
		t.Errorf("Text = %q", got)
	}
}

func TestClip(t *testing.T) {
	if got := Clip("short", 10); got != "short" {
		t.Errorf("Clip = %q", got)
	}
	got := Clip(strings.Repeat("é", 100), 21)
	if len(got) > 21 || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("Clip = %q (%d bytes)", got, len(got))
	}
}

// FuzzLine: whatever the input, the output is valid UTF-8 without an
// unsafe rune, and clean text passes unchanged.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]0;t\x07", "\r\x1b[2K", "\xff\xfe", "\u202e",
		"\u061c", "a\u2028b\u2029", "\u0085\u009b", "\u2066x\u2069\u200e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Clip(s, 40), Cell(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%q: invalid UTF-8 %q", s, out)
			}
			for _, r := range out {
				if Unsafe(r) {
					t.Fatalf("%q: unsafe rune %U in %q", s, r, out)
				}
			}
		}
		if len(Clip(s, 40)) > 40 {
			t.Fatalf("Clip too long")
		}
		for _, r := range Text(s) {
			if Unsafe(r) && r != '\n' && r != '\t' {
				t.Fatalf("%q: Text left %U", s, r)
			}
		}
		// Encoded as a report encodes (SetEscapeHTML(false)) and passed
		// through JSON: no unsafe rune raw, and the same string back.
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		if err := e.Encode(s); err != nil {
			t.Fatal(err)
		}
		out := JSON(enc.Bytes())
		for _, r := range string(out) {
			if r >= 0x20 && Unsafe(r) || r < 0x20 && r != '\n' {
				t.Fatalf("%q: JSON left %U in %s", s, r, out)
			}
		}
		var back, want string
		if err := json.Unmarshal(enc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &back); err != nil || back != want {
			t.Fatalf("%q: JSON decodes to %q (%v), want %q", s, back, err, want)
		}
	})
}

// TestUnsafeIsUnicodesTables: Unsafe is exactly the control characters,
// the bidirectional controls and the line and paragraph separators of
// Go's Unicode tables, over every code point; the ones the hostile pass
// found raw are among them.
func TestUnsafeIsUnicodesTables(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.In(r, unicode.Cc, unicode.Bidi_Control, unicode.Zl, unicode.Zp)
		if Unsafe(r) != want {
			t.Errorf("Unsafe(%U) = %v, want %v", r, !want, want)
		}
	}
	for _, r := range []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069, 0x2028, 0x2029, 0x0085, 0x009b, 0x7f, '\n', '\r'} {
		if !Unsafe(r) {
			t.Errorf("Unsafe(%U) = false", r)
		}
	}
	for _, r := range []rune{' ', 'a', 'µ', '…', 0x200b, 0x00a0} {
		if Unsafe(r) {
			t.Errorf("Unsafe(%U) = true", r)
		}
	}
}

// TestCell: a text cell a spreadsheet would run as a formula gets a
// leading quote (OWASP); other text is Line's.
func TestCell(t *testing.T) {
	for in, want := range map[string]string{
		"syscall-basic":            "syscall-basic",
		"=HYPERLINK(\"http://x\")": "'=HYPERLINK(\"http://x\")",
		"+1":                       "'+1",
		"-2+3":                     "'-2+3",
		"@SUM(A1)":                 "'@SUM(A1)",
		"\tx":                      `\x09x`, // escaped by Line: no longer a tab
		"":                         "",
		"a=1":                      "a=1",
	} {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJSON: the raw C1, DEL and bidi characters encoding/json leaves in
// strings become \u escapes, and the document decodes to the same value,
// also when a writer gets it a byte at a time.
func TestJSON(t *testing.T) {
	v := map[string]string{"k": "a\u009b2J\u202e\x7f\u0085é\x1b\u061c\u2028\u2029"}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.Encode(v)
	enc := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	got := JSON(enc)
	for _, r := range string(got) {
		if Unsafe(r) {
			t.Fatalf("JSON left %U in %s", r, got)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["k"] != v["k"] {
		t.Fatalf("decodes to %q (%v), want %q", back["k"], err, v["k"])
	}
	var b bytes.Buffer
	w := NewJSONWriter(&b)
	for i := range enc {
		w.Write(enc[i : i+1])
	}
	w.Flush()
	if !bytes.Equal(b.Bytes(), got) {
		t.Errorf("byte-at-a-time writer: %s, want %s", b.Bytes(), got)
	}
	if clean := []byte(`{"a":"µs/op"}`); !bytes.Equal(JSON(clean), clean) {
		t.Error("clean JSON changed")
	}
}
