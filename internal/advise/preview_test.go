package advise

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/wslconfig"
)

// previewAndEdit plans target on a WSL 2 machine whose .wslconfig has
// kernelCommandLine = value, then performs the plan's own wslconfig steps
// on that file. It returns what advise previews (configured_after) and
// what the edit wrote; ok is false when the input is outside what
// sectax edits (wslconfig refuses the file or the parameters, or the
// target does not parse).
func previewAndEdit(t *testing.T, s *sysinfo.Snapshot, kb *mitigation.Knowledge, value, target string) (preview, written string, ok bool) {
	t.Helper()
	tg, err := mitigation.ParseTarget(target)
	if err != nil {
		return "", "", false
	}
	f, err := wslconfig.Parse([]byte("[wsl2]\nkernelCommandLine = " + value + "\n"))
	if err != nil {
		return "", "", false
	}
	e, _ := f.KernelCommandLine()
	p := Platform{Kind: PlatformWSL, Known: true, Configured: e.Value, ConfigKey: "kernelCommandLine",
		ConfigPath: "/mnt/c/Users/dev/.wslconfig"}
	a := For(s, p, tg, kb)
	for _, st := range a.Steps {
		rest, isWSL := strings.CutPrefix(st.Command, "sectax wslconfig ")
		if !isWSL || strings.HasSuffix(rest, " --dry-run") {
			continue
		}
		verb, args, _ := strings.Cut(rest, " ")
		edit := f.Set
		if verb == "unset" {
			edit = f.Unset
		}
		nf, _, err := edit(strings.Fields(args))
		var le *wslconfig.LineError
		var pe *wslconfig.ParamError
		if errors.As(err, &le) || errors.As(err, &pe) {
			return "", "", false
		}
		if err != nil {
			t.Fatalf("%q, %q: %s: %v", value, target, st.Command, err)
		}
		f = nf
	}
	if e, ok := f.KernelCommandLine(); ok {
		written = e.Value
	}
	return a.ConfiguredAfter, written, true
}

// checkPreview is the property: the command line advise previews is the
// one the wslconfig commands it prints write, word for word.
func checkPreview(t *testing.T, s *sysinfo.Snapshot, kb *mitigation.Knowledge, value, target string) bool {
	t.Helper()
	preview, written, ok := previewAndEdit(t, s, kb, value, target)
	if !ok {
		return false
	}
	if !slices.Equal(mitigation.Tokens(preview), mitigation.Tokens(written)) {
		t.Errorf("kernelCommandLine = %q, target %q: advise previews %q, wslconfig writes %q", value, target, preview, written)
	}
	return true
}

var previewCases = []struct{ value, target string }{
	{"", "off"},
	{"mitigations=auto", "off"},
	{"mitigations=auto quiet nosmt", "off"},
	{"quiet mitigations=auto audit=1", "mitigations=off audit=0"},
	{"mitigations=off audit=0", "auto"},
	{"mitigations=off nopti spectre_v2=off quiet", "auto"},
	{"mds=off mds=full", "auto"},
	{"mitigations=auto quiet mitigations=off", "auto"},
	{"nopti x pti=auto", "pti=on"},
	{"nopti", "pti=on"},
	{"spectre-v2=retpoline nosmt", "spectre_v2=off"},
	{"nospec_store_bypass_disable", "spec_store_bypass_disable=on"},
	{"mitigations=auto -- single", "off"},
	{"loglevel=1 loglevel=2 b", "loglevel=3"},
	{"tsx=on kvm.nx_huge_pages=off", "auto"},
	{"mitigations=auto", "mitigations=off nopti"},
}

// TestPreviewIsTheEdit: the table of the property.
func TestPreviewIsTheEdit(t *testing.T) {
	s, _, kb := load(t, "sys:wsl2-intel-on")
	for _, c := range previewCases {
		if !checkPreview(t, s, kb, c.value, c.target) {
			t.Errorf("%q, %q: outside what sectax edits", c.value, c.target)
		}
	}
}

// FuzzPreviewIsTheEdit: for any kernelCommandLine and target that sectax
// edits, the preview is what the edit writes.
func FuzzPreviewIsTheEdit(f *testing.F) {
	for _, c := range previewCases {
		f.Add(c.value, c.target)
	}
	s, err := sysinfo.Collect(testutil.SysinfoRoot("wsl2-intel-on"))
	if err != nil {
		f.Fatal(err)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, value, target string) {
		checkPreview(t, s, kb, value, target)
	})
}

// TestTwoWindowsProfiles: with two Windows profiles under the drive
// mounts, sysinfo records "ambiguous: 2 candidates" (the locator
// sectax wslconfig uses refuses to choose), and advise and verify say so
// instead of reading one of the two files.
func TestTwoWindowsProfiles(t *testing.T) {
	dir := t.TempDir()
	testutil.CopyTree(t, testutil.SysinfoRoot("wsl2-intel-on"), dir)
	other := filepath.Join(dir, "mnt", "c", "Users", "ana")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, ".wslconfig"), []byte("[wsl2]\nkernelCommandLine = mitigations=off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := sysinfo.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := s.WSL
	if w == nil || w.WSLConfigPath != "" || w.WSLConfigSource != "ambiguous: 2 candidates" ||
		!slices.Equal(w.WSLConfigCandidates, []string{"/mnt/c/Users/ana/.wslconfig", "/mnt/c/Users/dev/.wslconfig"}) {
		t.Fatalf("wsl = %+v", w)
	}
	if js, _ := json.Marshal(w); !strings.Contains(string(js), `"wslconfig_source":"ambiguous: 2 candidates"`) {
		t.Errorf("JSON lacks the lookup: %s", js)
	}
	p := Probe(dir, s)
	if p.Known || p.Configured != "" || !strings.Contains(p.ConfigError, "ambiguous: 2 candidates") {
		t.Fatalf("platform %+v", p)
	}
	kb, _ := mitigation.KnowledgeBase()
	a := For(s, p, mustTarget(t, "off"), kb)
	if !slices.ContainsFunc(a.Warnings, func(w string) bool { return strings.Contains(w, "ambiguous: 2 candidates") }) {
		t.Errorf("advise warnings %q", a.Warnings)
	}
	v := Verify(s, p, mustTarget(t, "off"), kb)
	if js, _ := json.Marshal(v); !strings.Contains(string(js), "ambiguous: 2 candidates") {
		t.Errorf("verify does not say it: %s", js)
	}
}
