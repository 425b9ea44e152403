package safetext

import (
	"strings"
	"testing"
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
	for _, s := range []string{"", "plain", "\x1b]0;t\x07", "\r\x1b[2K", "\xff\xfe", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Clip(s, 40)} {
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
	})
}
