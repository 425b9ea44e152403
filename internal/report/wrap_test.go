package report

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWrap: lines break at spaces within the width, later lines carry the
// indent, a word longer than a line stays whole, and no text is lost.
func TestWrap(t *testing.T) {
	for _, c := range []struct {
		s, first, rest string
		width          int
		want           []string
	}{
		{"a b c", "", "", 10, []string{"a b c"}},
		{"", "  x ", "", 10, []string{"  x"}},
		{"alpha beta gamma", "  ", "    ", 12, []string{"  alpha beta", "    gamma"}},
		{"abcdefghijkl mn", "", "  ", 5, []string{"abcdefghijkl", "  mn"}},
		{"ab cdefghijkl", "", "  ", 5, []string{"ab", "  cdefghijkl"}},
		{"a  b", "", "", 10, []string{"a  b"}},
		{"mitigations=auto quiet", "k  ", "   ", 20, []string{"k  mitigations=auto", "   quiet"}},
	} {
		got := wrap(c.s, c.first, c.rest, c.width)
		if !slices.Equal(got, c.want) {
			t.Errorf("wrap(%q, %q, %q, %d) = %q, want %q", c.s, c.first, c.rest, c.width, got, c.want)
		}
	}
	long := strings.Repeat("word ", 100) + "sentence-end"
	lines := wrap(long, "  key  ", "       ", TextWidth)
	var words []string
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > TextWidth {
			t.Errorf("line of %d runes: %q", n, l)
		}
		words = append(words, strings.Fields(l)...)
	}
	if got := strings.Join(words, ""); got != "key"+strings.ReplaceAll(long, " ", "") {
		t.Errorf("wrapping lost text: %q", got)
	}
}
