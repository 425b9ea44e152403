package mitigation

import (
	"errors"
	"os"
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
		{"nopti spectre_v2=retpolin", "did you mean spectre_v2=retpoline?"},
		{"mitigations=auto,no_user_kernal", "is not a value of mitigations="},
		{"mitigations=auto,no_user_kernal", "did you mean mitigations=auto,no_user_kernel?"},
		{"retbleed=auto,nsmt", "did you mean retbleed=auto,nosmt?"},
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

// TestParseTargetUnaccepted: a value the kernel does not accept that is no
// typo of one it does is a line the model predicts (the corpus boots
// them), so it is taken, and Unaccepted says why the kernel will not
// take it as written (issue 46: nothing the model predicts is refused).
func TestParseTargetUnaccepted(t *testing.T) {
	for _, in := range []string{"mitigations=bogus,off", "mitigations=off,bogus", "mitigations=bogus",
		"mitigations=auto,bogus,no_user_kernel", "mitigations=no_user_kernel,bogus,no_guest_host", "retbleed=bogus", "spectre_v2=whatever nopti"} {
		tg, err := ParseTarget(in)
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", in, err)
			continue
		}
		var whys []string
		for _, p := range tg.Params {
			if why, meant := Unaccepted(p); why != "" {
				whys = append(whys, why)
				if len(meant) > 0 {
					t.Errorf("%s: meant %q, want none (no accepted value is near)", p.Raw, meant)
				}
			}
		}
		if len(whys) != 1 || !strings.Contains(whys[0], "is not a value of") {
			t.Errorf("ParseTarget(%q): Unaccepted says %q, want one reason", in, whys)
		}
	}
	for _, in := range []string{"mitigations=off", "retbleed=auto,nosmt", "console=ttyS0", "nopti"} {
		if why, _ := Unaccepted(ParseCmdline(in).Params[0]); why != "" {
			t.Errorf("Unaccepted(%s) = %q, want nothing", in, why)
		}
	}
}

// TestParseTargetEveryCorpusLine: every command line the corpus booted,
// which the replay predicts, is a target advise --target and verify
// --expect take (issue 46: nothing the model predicts is refused).
func TestParseTargetEveryCorpusLine(t *testing.T) {
	f, err := os.Open(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := ReadObservations(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, o := range obs {
		if o.Params == "" || seen[o.Params] {
			continue
		}
		seen[o.Params] = true
		if _, err := ParseTarget(o.Params); err != nil {
			t.Errorf("the corpus booted %q, which the replay predicts; ParseTarget refuses it: %v", o.Params, err)
		}
	}
	if len(seen) < 100 {
		t.Errorf("%d distinct corpus lines, want the corpus's 100 and more", len(seen))
	}
}
