package cli

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/run"
)

// FuzzCheckLabel: a label with a control character (C0, DEL, C1, line or
// paragraph separator) or invalid UTF-8 is always refused; one checkLabel
// accepts is printable, unpadded, within the length limit and names no
// baseline, so the store's import takes it back.
func FuzzCheckLabel(f *testing.F) {
	for _, s := range []string{"on", "off", "", "mitigations=off audit=0", "on\n# x", "\x1b[31m", "bell\a", "c1\u0085", "del\x7f", "bad\xff", "ünïcødé", "\u2028", " on", "baseline:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bad := !utf8.ValidString(s)
		for _, r := range s {
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				bad = true
			}
		}
		err := checkLabel(s)
		if bad && err == nil {
			t.Fatalf("checkLabel(%q) accepted a control character or invalid UTF-8", s)
		}
		if err == nil && (len(s) > run.MaxLabelBytes || strings.HasPrefix(s, run.ReservedPrefix) || s != strings.TrimSpace(s)) {
			t.Fatalf("checkLabel(%q) accepted a label import refuses", s)
		}
	})
}
