package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

// decideWith decides on the fake host-6.18 with on and off measured as
// given (relative spreads of six repetitions around each centre), taking
// the runs whatever machine measured them.
func decideWith(t *testing.T, on, off float64, spread float64) *decide.Decision {
	t.Helper()
	dir := testutil.AttributeRoot(t, "host-6.18")
	snap, err := sysinfo.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	// Each arm records its own state (a label is no evidence): on the
	// machine's, off its command line plus mitigations=off and the files
	// that line turns off read Vulnerable, as a boot under it records them.
	stateOf := func(name string) map[string]any {
		s := *snap
		if name == "off" {
			off := kb.ExpectedOffAtBoot(s.Machine(), mitigation.ParseCmdline("mitigations=off").Params)
			s.Cmdline.Raw = strings.TrimSpace(s.Cmdline.Raw + " mitigations=off")
			s.Vulnerabilities = slices.Clone(s.Vulnerabilities)
			for j, v := range s.Vulnerabilities {
				if slices.Contains(off, v.Name) {
					s.Vulnerabilities[j] = mitigation.ParseVulnerability(v.Name, "Vulnerable")
				}
			}
		}
		b, err := json.Marshal(&s)
		if err != nil {
			t.Fatal(err)
		}
		var env map[string]any
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		return env
	}
	mk := func(name string, centre float64) attribute.Arm {
		var xs []float64
		for _, d := range []float64{0, 1, -1, 2, -2, 0.5, -0.5, 1.5} {
			xs = append(xs, centre*(1+d*spread))
		}
		r := &run.Run{Schema: run.Schema, ID: "20261201T090000-" + name, Label: name, Status: run.StatusComplete,
			Results: []run.Result{{Workload: "syscall-basic", Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}
		return attribute.Arm{Name: name, Runs: []*run.Run{r}, Envs: []map[string]any{stateOf(name)}}
	}
	d, err := decide.Decide(decide.Input{Snap: snap, Platform: advise.Probe(dir, snap), KB: kb, Root: dir, AnyMachine: true,
		Arms: []attribute.Arm{mk("on", on), mk("off", off)}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDecisionSavingClaims: a saving says which of three it is, in every
// format of the decision: a significant saving "saves X% [lo, hi]"; a
// change whose interval lies within ±2% "costs nothing beyond ±2% here";
// a noisy one "not measured precisely enough" with the smallest change
// the runs could have seen and the command that would measure it.
func TestDecisionSavingClaims(t *testing.T) {
	var text, md bytes.Buffer
	for _, tc := range []struct {
		name            string
		on, off, spread float64
		claim, words    string
	}{
		{"a saving", 12, 10, 0.001, decide.ClaimSaves, "saves +20.00"},
		{"nothing", 12, 12.01, 0.001, decide.ClaimNothing, "costs nothing beyond ±2% here ("},
		{"noisy", 12, 12.5, 0.1, decide.ClaimImprecise, "not measured precisely enough: could not have seen less than "},
	} {
		d := decideWith(t, tc.on, tc.off, tc.spread)
		i := slices.IndexFunc(d.Options, func(o decide.Option) bool { return o.Name == "off" })
		if i < 0 || len(d.Options[i].Saving) != 1 {
			t.Fatalf("%s: no saving of off: %+v", tc.name, d.Options)
		}
		s := d.Options[i].Saving[0]
		if s.Claim != tc.claim || s.Equivalence == nil {
			t.Errorf("%s: claim %q (%+v), want %q", tc.name, s.Claim, s.Equivalence, tc.claim)
		}
		line := decideSaving(s)
		if !strings.Contains(line, tc.words) {
			t.Errorf("%s: %q lacks %q", tc.name, line, tc.words)
		}
		if tc.claim == decide.ClaimImprecise && (s.DetectablePct == nil ||
			!strings.HasSuffix(line, "; measure it precisely with: sectax campaign start --plan vectors --precision 1")) {
			t.Errorf("%s: %q: want the detectable change and the command with --precision", tc.name, line)
		}
		fmt.Fprintf(&text, "== %s\n", tc.name)
		fmt.Fprintf(&md, "<!-- %s -->\n", tc.name)
		if err := DecisionText(&text, d); err != nil {
			t.Fatal(err)
		}
		fitsWidths(t, tc.name, func(w io.Writer) error { return DecisionText(w, d) })
		if err := DecisionMarkdown(&md, d); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Golden(t, filepath.Join("testdata", "decide-claims.text"), text.Bytes())
	testutil.Golden(t, filepath.Join("testdata", "decide-claims.md"), md.Bytes())
}
