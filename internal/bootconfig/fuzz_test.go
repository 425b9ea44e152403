package bootconfig

import (
	"strings"
	"testing"
)

// FuzzParse: any --config value either parses into a named configuration
// whose parameters survive a round trip, or is refused with ErrConfig.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"on", "off", "off=mitigations=off", "nopti=pti=off nopti", "x=\"a b\"", "a==b", "x=--", "é=pti=off"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			if !strings.Contains(err.Error(), ErrConfig.Error()) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrConfig", s, err)
			}
			return
		}
		if c.Name == "" || !nameRE.MatchString(c.Name) {
			t.Fatalf("Parse(%q) gave name %q", s, c.Name)
		}
		if c.Name != "on" && len(c.Params) == 0 {
			t.Fatalf("Parse(%q): %s adds nothing", s, c.Name)
		}
		back, err := Parse(c.Name + "=" + c.String())
		if c.Name != "on" && (err != nil || back.String() != c.String()) {
			t.Fatalf("round trip of %q: %q, %v", s, back.String(), err)
		}
	})
}
