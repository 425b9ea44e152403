package wslconfig

import (
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
)

func TestCheckParamsRefuses(t *testing.T) {
	for _, tc := range []struct {
		params []string
		why    string
	}{
		{nil, "no kernel parameters"},
		{[]string{""}, "empty"},
		{[]string{"mitigations=off nosmt"}, "contains a blank"},
		{[]string{`dyndbg="file x.c +p"`}, "contains a blank"},
		{[]string{`foo="bar"`}, "double quote"},
		{[]string{"--"}, "goes to init"},
		{[]string{"=off"}, "no name"},
		{[]string{"mitigations=öff"}, "non-ASCII"},
		{[]string{"spectre_v2=off", "spectre-v2=on"}, "given twice"},
		{[]string{"nopti", "pti=on"}, "given twice"},
	} {
		err := CheckParams(tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("CheckParams(%q) = %v, want an error about %q", tc.params, err, tc.why)
		}
	}
	// Two mitigations= are the kernel's to fold (advise predicts them).
	if err := CheckParams([]string{"mitigations=off", "mitigations=auto,no_guest_host"}); err != nil {
		t.Errorf("two mitigations= refused: %v", err)
	}
	if err := CheckParams([]string{"mitigations=off", "audit=0", `acpi_osi=!Windows`, `root=C:\x`}); err != nil {
		t.Errorf("valid params refused: %v", err)
	}
}

// TestEncodeValueRoundTrip: what encodeValue writes, WSL reads back as
// the same parameters.
func TestEncodeValueRoundTrip(t *testing.T) {
	for _, toks := range [][]string{
		{"mitigations=off"},
		{`root=C:\x\y`, "quiet"},
		{"a#b", "c"},
		{`dyndbg="file x.c +p"`, "nosmt"},
	} {
		for _, quoted := range []bool{false, true} {
			text := "[wsl2]\nkernelCommandLine = " + encodeValue(toks, quoted) + "\n"
			f, err := Parse([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			e, ok := f.KernelCommandLine()
			if !ok || len(f.Diagnostics()) > 0 || !slices.Equal(mitigation.Tokens(e.Value), toks) {
				t.Errorf("%q (quoted %v) → %q read back as %q %v", toks, quoted, text, e.Value, f.Diagnostics())
			}
		}
	}
}

// TestBadHeaderQuirk: after a rejected section header WSL files keys under
// whatever its name buffer holds: the old section cut to its length, or the
// bad name padded with NULs (a C string that ends there).
func TestBadHeaderQuirk(t *testing.T) {
	for text, want := range map[string]string{
		"[experimental]\n[wsl x]\nkernelCommandLine=a\n":  "wsl",
		"[wsl2]\n[experimental x]\nkernelCommandLine=a\n": "expe.kernelCommandLine",
		"[wsl2]\n[ wsl2 ]\nkernelCommandLine=a\n":         "wsl2.kernelCommandLine",
	} {
		f, err := Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		es := f.Entries()
		if len(es) != 1 || es[0].Name() != want {
			t.Errorf("%q: entries %+v, want the name %q", text, es, want)
		}
		if _, _, err := f.Set([]string{"mitigations=off"}); err == nil {
			t.Errorf("%q: set should refuse a file with a bad header", text)
		}
	}
}
