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
// the observed text, and a proof holding it disagrees as a whole.
func TestSideNamesTheDisagreement(t *testing.T) {
	base, got := recorded(t, "default"), recorded(t, "spectre_v2_user=off")
	obs := ObservedSets(base, got)
	if !slices.Contains(obs.Kept, "spectre_v2") || len(obs.GivesUp)+len(obs.Weakened) != 0 {
		t.Fatalf("observed %+v: want everything kept", obs)
	}
	pred := Sets{GivesUp: []string{}, Weakened: []string{"spectre_v2"}, Kept: slices.DeleteFunc(slices.Clone(obs.Kept), func(s string) bool { return s == "spectre_v2" })}
	p := New(Input{Obs: map[string]*sysinfo.Snapshot{"": base}, Accel: "tcg", CPU: "Cascadelake-Server"})
	row := p.Add("opt", "spectre_v2_user=off", base, got, pred, true)
	if row.Agree || p.Agree || len(row.Disagreements) != 1 {
		t.Fatalf("row %+v, proof agrees %v: want one disagreement", row, p.Agree)
	}
	d := row.Disagreements[0]
	for _, want := range []string{"opt: spectre_v2 predicted weakened, observed kept", "STIBP: disabled"} {
		if !strings.Contains(d, want) {
			t.Errorf("disagreement %q lacks %q", d, want)
		}
	}
	if agree := p.Add("same", "spectre_v2_user=off", base, got, obs, true); !agree.Agree || len(agree.Disagreements) != 0 {
		t.Errorf("the observed sets as prediction: %+v", agree)
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
