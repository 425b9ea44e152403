package mitigation

import (
	"errors"
	"strings"
	"testing"
)

// TestParseTargetTypos: a typo is a usage error naming the word meant
// (issue 47), while the parameters sectax knows, and kernel parameters
// outside the mitigations that resemble none of them, are kept as typed.
func TestParseTargetTypos(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"of", "of is not a kernel parameter sectax knows, and no kernel in its catalog accepts it: did you mean off or on?"},
		{"offf", "did you mean off?"},
		{"atuo", "did you mean auto?"},
		{"mitigations=of", "mitigations=of is not a value of mitigations= the kernel accepts (mitigations=[off|auto"},
		{"mitigations=of", "did you mean mitigations=off?"},
		{"mitigations", "mitigations needs a value"},
		{"spectre_v3=off", "did you mean spectre_v2?"},
		{"nopti spectre_v2=retpolin", "did you mean spectre_v2=retpoline or "},
		{"mitigations=auto,no_user_kernal", "is not a value of mitigations="},
	} {
		_, err := ParseTarget(tt.in)
		if err == nil || !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseTarget(%q) = %v, want one line with %q", tt.in, err, tt.want)
		}
	}
	for _, in := range []string{"off", "on", "auto", "mitigations=off audit=0", "nopti nospectre_v2", "mitigations=auto,no_user_kernel",
		"retbleed=auto,nosmt", "nosmt=force", "spectre-v2=retpoline", "mitigations=off console=ttyS0", "panic=0", "loglevel=3", "no_timer_check"} {
		if _, err := ParseTarget(in); err != nil {
			t.Errorf("ParseTarget(%q): %v", in, err)
		}
	}
}
