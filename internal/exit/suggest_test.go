package exit

import (
	"slices"
	"testing"
)

func TestSuggest(t *testing.T) {
	for _, tt := range []struct {
		word       string
		candidates []string
		want       []string
	}{
		{"of", []string{"off", "auto", "on"}, []string{"off", "on"}},
		{"offf", []string{"off", "auto", "on"}, []string{"off"}},
		{"sutie", []string{"suite", "runs", "only"}, []string{"suite"}},
		{"atuo", []string{"off", "auto"}, []string{"auto"}},
		{"spectre_v3", []string{"spectre_v2", "spectre_v2_user", "nospectre_v1"}, []string{"spectre_v2"}},
		{"pre", []string{"precision", "prepare", "runs"}, []string{"prepare", "precision"}},
		{"xyzzy", []string{"off", "auto", "on"}, nil},
		{"off", []string{"off"}, nil}, // the word itself is no suggestion
		{"", []string{"off"}, nil},
	} {
		if got := Suggest(tt.word, tt.candidates...); !slices.Equal(got, tt.want) {
			t.Errorf("Suggest(%q, %v) = %v, want %v", tt.word, tt.candidates, got, tt.want)
		}
	}
	if got := DidYouMean("of", "off", "auto", "on"); got != "did you mean off or on?" {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("xyzzy", "off"); got != "" {
		t.Errorf("DidYouMean with no candidate = %q, want empty", got)
	}
}

func FuzzSuggest(f *testing.F) {
	for _, s := range []string{"of", "offf", "", "é", "ab\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range Suggest(s, "off", "auto", "on", "spectre_v2") {
			if !slices.Contains([]string{"off", "auto", "on", "spectre_v2"}, c) {
				t.Fatalf("Suggest(%q) gave %q, no candidate", s, c)
			}
		}
	})
}
