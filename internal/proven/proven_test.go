package proven

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// recorded reads a real TCG boot of Debian's 6.1.0-57-amd64 on
// Cascadelake-Server (testdata), its files parsed as the host reads them.
func recorded(t *testing.T, name string) *sysinfo.Snapshot {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s sysinfo.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for i, v := range s.Vulnerabilities {
		s.Vulnerabilities[i] = mitigation.ParseVulnerability(v.Name, v.Raw)
	}
	return &s
}

// TestSideNamesTheDisagreement: a prediction the boot contradicts (the old
// model's "spectre_v2_user=off weakens spectre_v2" where STIBP was already
// disabled) makes a row that disagrees, names the file, both classes and
// the observed text, and a proof holding it disagrees as a whole; the
// row's predicted sets are those of the same per-file prediction.
func TestSideNamesTheDisagreement(t *testing.T) {
	base, got := recorded(t, "default"), recorded(t, "spectre_v2_user=off")
	obs := ObservedSets(base, got)
	if !slices.Contains(obs.Kept, "spectre_v2") || len(obs.GivesUp)+len(obs.Weakened)+len(obs.Replaced) != 0 {
		t.Fatalf("observed %+v: want everything kept", obs)
	}
	v2, _ := Vuln(base, "spectre_v2")
	now := mitigation.FileState{Text: strings.TrimSpace(v2.Raw), Class: v2.State}
	weakened := []mitigation.FileView{{Name: "spectre_v2", From: now, To: mitigation.FileState{Class: mitigation.Mitigated}, Change: mitigation.ClassWeakened}}
	p := New(Input{Obs: map[string]*sysinfo.Snapshot{"": base}, Accel: "tcg", CPU: "Cascadelake-Server"})
	row := p.Add("opt", "spectre_v2_user=off", base, got, weakened, true)
	if row.Agree || p.Agree || len(row.Disagreements) != 1 {
		t.Fatalf("row %+v, proof agrees %v: want one disagreement", row, p.Agree)
	}
	if !slices.Equal(row.Predicted.Weakened, []string{"spectre_v2"}) || slices.Contains(row.Predicted.Kept, "spectre_v2") {
		t.Errorf("predicted sets %+v: want spectre_v2 weakened", row.Predicted)
	}
	d := row.Disagreements[0]
	for _, want := range []string{"opt: spectre_v2 differs: predicted weakened", "observed kept", "STIBP: disabled"} {
		if !strings.Contains(d, want) {
			t.Errorf("disagreement %q lacks %q", d, want)
		}
	}
	if agree := p.Add("same", "spectre_v2_user=off", base, got, nil, true); !agree.Agree || len(agree.Disagreements) != 0 {
		t.Errorf("nothing predicted to change: %+v", agree)
	}
}

// TestSetsOfNamesReplaced: a file the model keeps mitigated with another
// text (spec_rstack_overflow=ibpb: safe RET → IBPB) is predicted replaced,
// as the boot shows it, not kept; a file whose text the model leaves open
// is kept.
func TestSetsOfNamesReplaced(t *testing.T) {
	m := mitigation.Mitigated
	s := SetsOf([]mitigation.FileView{
		{Name: "spec_rstack_overflow", From: mitigation.FileState{Text: "Mitigation: Safe RET", Class: m}, To: mitigation.FileState{Text: "Mitigation: IBPB", Class: m}, Change: mitigation.ClassKept},
		{Name: "spectre_v1", From: mitigation.FileState{Text: "Mitigation: usercopy/swapgs barriers", Class: m}, To: mitigation.FileState{Class: m}, Change: mitigation.ClassKept},
		{Name: "mds", From: mitigation.FileState{Text: "Mitigation: Clear CPU buffers", Class: m}, To: mitigation.FileState{Text: "Vulnerable", Class: mitigation.Vulnerable}, Change: mitigation.ClassGivenUp},
		{Name: "vmscape", From: mitigation.FileState{Text: "Not affected", Class: mitigation.NotAffected}, To: mitigation.FileState{Text: "Vulnerable", Class: mitigation.Vulnerable}, Change: "becomes vulnerable"},
	})
	if !slices.Equal(s.Replaced, []string{"spec_rstack_overflow"}) || !slices.Equal(s.Kept, []string{"spectre_v1"}) || !slices.Equal(s.GivesUp, []string{"mds"}) || len(s.Weakened) != 0 {
		t.Errorf("sets %+v", s)
	}
}

// TestObservedSetsGoneFile: a file the boot no longer shows is given up.
func TestObservedSetsGoneFile(t *testing.T) {
	base := recorded(t, "default")
	got := *base
	got.Vulnerabilities = slices.DeleteFunc(slices.Clone(base.Vulnerabilities), func(v mitigation.Vulnerability) bool { return v.Name == "meltdown" })
	if s := ObservedSets(base, &got); !slices.Contains(s.GivesUp, "meltdown") {
		t.Errorf("sets %+v: meltdown gone is not given up", s)
	}
}

// TestCompareVerdicts: every file is compared, mitigated or not by
// default. A class change is "differs" (vmscape=force: Not affected →
// Vulnerable; ITS forced: Not affected → mitigated), another mitigation
// in the same place "replaced" (spec_rstack_overflow=ibpb: safe RET →
// IBPB), the predicted text or class seen "agree"; a file gone differs.
func TestCompareVerdicts(t *testing.T) {
	same := func(name, raw string) mitigation.FileView {
		now := mitigation.FileState{Text: raw, Class: mitigation.ParseVulnerability(name, raw).State}
		return mitigation.FileView{Name: name, From: now, To: now}
	}
	givenUp := func(fp *mitigation.FileView) {
		fp.Change, fp.To = mitigation.ClassGivenUp, mitigation.FileState{Class: mitigation.Vulnerable}
	}
	weakened := func(fp *mitigation.FileView) {
		fp.Change, fp.To = mitigation.ClassWeakened, mitigation.FileState{Class: mitigation.Mitigated}
	}
	gained := func(fp *mitigation.FileView) {
		fp.Change, fp.To = "becomes mitigated", mitigation.FileState{Class: mitigation.Mitigated}
	}
	open := func(fp *mitigation.FileView) {
		fp.Change, fp.To = mitigation.ClassKept, mitigation.FileState{Class: mitigation.Mitigated}
	}
	cases := []struct {
		name, base, got string
		pred            func(*mitigation.FileView)
		gone            bool
		want            string
	}{
		{"vmscape", "Not affected", "Vulnerable", nil, false, VerdictDiffers},
		{"indirect_target_selection", "Not affected", "Mitigation: Aligned branch/return thunks", nil, false, VerdictDiffers},
		{"spec_rstack_overflow", "Mitigation: Safe RET", "Mitigation: IBPB", nil, false, VerdictReplaced},
		{"spec_rstack_overflow", "Mitigation: Safe RET", "Mitigation: Safe RET", nil, false, VerdictAgree},
		{"meltdown", "Mitigation: PTI", "", nil, true, VerdictDiffers},
		{"meltdown", "Mitigation: PTI", "Vulnerable", givenUp, false, VerdictAgree},
		{"retbleed", "Not affected", "Mitigation: IBRS", gained, false, VerdictAgree},
		{"spectre_v2", "Mitigation: Retpolines; STIBP: conditional", "Mitigation: Retpolines; STIBP: disabled", weakened, false, VerdictAgree},
		// A kept line whose mode a parameter selects (the model leaves its
		// text open) is replaced when the boot shows another text.
		{"spec_rstack_overflow", "Mitigation: Safe RET", "Mitigation: IBPB", open, false, VerdictReplaced},
		{"spec_rstack_overflow", "Mitigation: Safe RET", "Mitigation: Safe RET", open, false, VerdictAgree},
		{"spectre_v2", "Mitigation: Retpolines; STIBP: conditional", "Mitigation: Retpolines; STIBP: disabled", nil, false, VerdictDiffers},
	}
	for _, c := range cases {
		b := mitigation.ParseVulnerability(c.name, c.base)
		fp := same(c.name, c.base)
		if c.pred != nil {
			c.pred(&fp)
		}
		f := Compare(b, fp, mitigation.ParseVulnerability(c.name, c.got), !c.gone)
		if f.Verdict != c.want {
			t.Errorf("%s %q → %q: verdict %s, want %s (%+v)", c.name, c.base, c.got, f.Verdict, c.want, f)
		}
	}
}

// TestSideEveryFile: a row carries every file of both boots, its
// verdict is its worst file's, and the JSON names them as documented.
func TestSideEveryFile(t *testing.T) {
	mk := func(files ...string) *sysinfo.Snapshot {
		s := &sysinfo.Snapshot{}
		for _, f := range files {
			name, raw, _ := strings.Cut(f, "=")
			s.Vulnerabilities = append(s.Vulnerabilities, mitigation.ParseVulnerability(name, raw))
		}
		return s
	}
	base := mk("spec_rstack_overflow=Mitigation: Safe RET", "vmscape=Not affected")
	replaced := Side("t", "spec_rstack_overflow=ibpb", base, mk("spec_rstack_overflow=Mitigation: IBPB", "vmscape=Not affected"), nil)
	if replaced.Verdict != VerdictReplaced || replaced.Agree || len(replaced.Files) != 2 || len(replaced.Disagreements) != 1 ||
		!strings.Contains(replaced.Disagreements[0], `predicted mitigated "Mitigation: Safe RET", observed mitigated "Mitigation: IBPB"`) {
		t.Errorf("replaced row %+v", replaced)
	}
	// Kept is the same text (docs/decide.md): another mitigation is not kept.
	if !slices.Equal(replaced.Observed.Replaced, []string{"spec_rstack_overflow"}) || len(replaced.Observed.Kept) != 0 {
		t.Errorf("replaced row's sets %+v", replaced.Observed)
	}
	differs := Side("t", "vmscape=force", base, mk("spec_rstack_overflow=Mitigation: IBPB", "vmscape=Vulnerable", "new=Vulnerable"), nil)
	if differs.Verdict != VerdictDiffers || len(differs.Files) != 3 || differs.Files[2].Predicted.Class != Absent {
		t.Errorf("differs row %+v", differs)
	}
	b, err := json.Marshal(differs.Files[1])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"vmscape","predicted":{"text":"Not affected","class":"not_affected"},"observed":{"text":"Vulnerable","class":"vulnerable"},"verdict":"differs"}`; string(b) != want {
		t.Errorf("JSON %s\nwant %s", b, want)
	}
}
