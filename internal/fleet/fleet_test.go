package fleet

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/fleet/fleettest"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

func synthetic(t *testing.T) []Run {
	t.Helper()
	var runs []Run
	for _, d := range fleettest.Fleet(1) {
		var env map[string]any
		if err := json.Unmarshal(d.RawEnv, &env); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, Run{Run: d.Run, Env: env})
	}
	return runs
}

// TestSyntheticFleet: the report finds the documented groups, pairs and
// taxes of the synthetic fleet, and every rendering says it is synthetic.
func TestSyntheticFleet(t *testing.T) {
	rep := Build(synthetic(t), "on", "off")
	if len(rep.Groups) != 3 || !rep.Synthetic {
		t.Fatalf("%d groups, synthetic %v", len(rep.Groups), rep.Synthetic)
	}
	for _, g := range rep.Groups {
		if !g.Synthetic {
			t.Errorf("%s not marked synthetic", g.CPU)
		}
		sys, pipe, ok := fleettest.TaxMean(g.CPU)
		if !ok {
			t.Fatalf("unknown group %q", g.CPU)
		}
		for _, w := range g.Workloads {
			want := sys
			if w.Workload == "sched-pipe" {
				want = pipe
			}
			// Documented host spread: at most 15 points for these sizes.
			if math.Abs(w.Median-want) > 0.12*want+3 || w.Hosts != len(g.Paired) {
				t.Errorf("%s %s: median tax %.1f%% over %d hosts, documented mean %.0f%%", g.CPU, w.Workload, w.Median, w.Hosts, want)
			}
			if iv := w.Interval; iv != nil && !(iv.Lo <= w.Median && w.Median <= iv.Hi) {
				t.Errorf("%s %s: interval [%v, %v] misses the median %v", g.CPU, w.Workload, iv.Lo, iv.Hi, w.Median)
			}
		}
	}
	epyc := groupOf(t, rep, "EPYC")
	if len(epyc.Hosts) != 7 || len(epyc.Paired) != 6 || len(epyc.Unpaired) != 1 || epyc.Unpaired[0].Why != "no run labelled off" {
		t.Errorf("EPYC group: %d hosts, %d paired, unpaired %+v", len(epyc.Hosts), len(epyc.Paired), epyc.Unpaired)
	}
	if epyc.Workloads[0].Interval == nil {
		t.Error("6 hosts give an interval across hosts")
	}
	wsl := groupOf(t, rep, "i7-1185G7")
	if !wsl.WSL || wsl.Workloads[0].Interval != nil || len(wsl.Workloads[0].Warnings) == 0 {
		t.Errorf("WSL group: %+v", wsl)
	}
}

func groupOf(t *testing.T, rep *Report, cpu string) Group {
	t.Helper()
	for _, g := range rep.Groups {
		if strings.Contains(g.CPU, cpu) {
			return g
		}
	}
	t.Fatalf("no group of %s", cpu)
	return Group{}
}

// TestUnverifiedPair: a host whose off run booted with mitigations on is
// not counted, and says why.
func TestUnverifiedPair(t *testing.T) {
	runs := synthetic(t)
	for _, r := range runs {
		if r.Run.ID == "synthetic-xeon-02-off" {
			r.Env["mitigation_mode"] = "on"
		}
	}
	rep := Build(runs, "on", "off")
	xeon := groupOf(t, rep, "Xeon")
	if len(xeon.Paired) != 5 || len(xeon.Unpaired) != 1 ||
		xeon.Unpaired[0].Why != "run synthetic-xeon-02-off labelled off booted with mitigations on" {
		t.Fatalf("paired %v, unpaired %+v", xeon.Paired, xeon.Unpaired)
	}
	if rep := Build(runs, "before", "after"); len(rep.Groups) != 0 {
		t.Fatalf("labels nobody uses gave %d groups", len(rep.Groups))
	}
}

// TestFixtureFile: testdata/synthetic-fleet.json (for `sectax import` in
// the docs) is what the generator makes.
func TestFixtureFile(t *testing.T) {
	var b bytes.Buffer
	if err := run.WriteDocs(&b, fleettest.Fleet(1), run.FormatArray); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "synthetic-fleet.json"), b.Bytes())
	docs, err := run.Decode("synthetic-fleet.json", b.Bytes())
	if err != nil || len(docs) != 31 {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
}
