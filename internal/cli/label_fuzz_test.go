package cli

import (
	"testing"
	"unicode/utf8"
)

// FuzzCheckLabel: a label checkLabel accepts is valid UTF-8 without C0, DEL
// or C1 control characters; one it refuses has one of them (or is not
// UTF-8).
func FuzzCheckLabel(f *testing.F) {
	for _, s := range []string{"on", "off", "", "mitigations=off audit=0", "on\n# x", "\x1b[31m", "bell\a", "c1\u0085", "del\x7f", "bad\xff", "ünïcødé", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bad := !utf8.ValidString(s)
		for _, r := range s {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
				bad = true
			}
		}
		if err := checkLabel(s); (err != nil) != bad {
			t.Errorf("checkLabel(%q) = %v", s, err)
		}
	})
}
