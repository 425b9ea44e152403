package compare

import (
	"slices"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// twoSides is a comparison of two clearly different sets of samples with
// the given environments.
func twoSides(t *testing.T, ea, eb map[string]any) *Report {
	t.Helper()
	a := mkRun("a1", "a", res("syscall-basic", nil, lower("ns/op", 100, 101, 99, 100, 102, 98, 100, 101)))
	b := mkRun("b1", "b", res("syscall-basic", nil, lower("ns/op", 80, 81, 79, 80, 82, 78, 80, 81)))
	rep, err := pair(side("a", []*run.Run{a}, ea), side("b", []*run.Run{b}, eb), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestSameSettingsNeverBetter: with the same mitigation settings a
// significant difference is one between the runs: no metric is better or
// worse, and the conclusion says so.
func TestSameSettingsNeverBetter(t *testing.T) {
	eb := envOn()
	eb["boot_id"] = "boot-on-2"
	rep := twoSides(t, envOn(), eb)
	if rep.Conclusion.Kind != ConclusionSameMitigations {
		t.Fatalf("conclusion %q, want %q", rep.Conclusion.Kind, ConclusionSameMitigations)
	}
	m := rep.Workloads[0].Metrics[0]
	if !m.Significant || m.Verdict != VerdictDiffers {
		t.Errorf("verdict %q (significant %v), want %q", m.Verdict, m.Significant, VerdictDiffers)
	}
	for _, r := range rep.Meaning.Moved {
		if r.Verdict == VerdictBetter || r.Verdict == VerdictWorse {
			t.Errorf("meaning ranks %s as %s", r.Workload, r.Verdict)
		}
	}
}

// TestAttackVectorsGiveUpOnlyTheirFiles: a side that differs only by
// mitigations=auto,no_guest_host,no_guest_guest gives up what only those
// vectors protect (VMSCAPE), not every bug mitigations= names.
func TestAttackVectorsGiveUpOnlyTheirFiles(t *testing.T) {
	eb := envOn()
	eb["boot_id"] = "boot-vec-1"
	eb["mitigation_mode"] = "custom"
	eb["cmdline"] = map[string]any{"raw": "root=/dev/vda quiet mitigations=auto,no_guest_host,no_guest_guest"}
	rep := twoSides(t, envOn(), eb)
	if rep.Conclusion.Kind == ConclusionSameMitigations {
		t.Fatal("a change of attack vectors read as no mitigation change")
	}
	var got *CmdlineChange
	for i := range rep.Meaning.Cmdline {
		if slices.Contains(rep.Meaning.Cmdline[i].Tokens, "mitigations=auto,no_guest_host,no_guest_guest") {
			got = &rep.Meaning.Cmdline[i]
		}
	}
	if got == nil {
		t.Fatalf("no command-line change in %+v", rep.Meaning.Cmdline)
	}
	if !slices.Equal(got.Vectors, []string{"guest_host", "guest_guest"}) {
		t.Errorf("vectors %v", got.Vectors)
	}
	if len(got.Affects) != 1 || len(got.Narrowed) < 10 {
		t.Errorf("affects %v, narrowed %v: want only VMSCAPE given up and the rest narrowed", got.Affects, got.Narrowed)
	}
	if m := rep.Workloads[0].Metrics[0]; m.Verdict != VerdictBetter {
		t.Errorf("verdict %q, want better (the settings differ)", m.Verdict)
	}
}

// TestWSLFromTheRecordedEnvironment: "WSL 2 guest" comes from a side's
// env snapshot, not from a kernel name.
func TestWSLFromTheRecordedEnvironment(t *testing.T) {
	ea, eb := envOn(), envOff()
	ea["kernel"] = map[string]any{"release": "6.6.87.2-microsoft-standard-WSL2-custom"}
	rep := twoSides(t, ea, eb)
	if rep.Meaning.VMGuest || rep.A.WSL {
		t.Errorf("a side without a recorded wsl block read as WSL: %+v", rep.Meaning.VMGuestSides)
	}
	eb["wsl"] = map[string]any{"version": float64(2), "distro": "Ubuntu"}
	rep = twoSides(t, envOn(), eb)
	if !rep.Meaning.VMGuest || !slices.Equal(rep.Meaning.VMGuestSides, []string{"B"}) {
		t.Errorf("vm guest %v sides %v, want B only", rep.Meaning.VMGuest, rep.Meaning.VMGuestSides)
	}
}

// TestCmdlineAffectsOnlyWhatTheMachineMitigates: what B's added
// mitigations=off governs is asked of the one model on A's recorded
// machine (an AMD Zen 4 that shows most bugs "Not affected"): only files
// A shows mitigated, never a bug the CPU does not have; without a recorded
// environment the parameter table's list stands.
func TestCmdlineAffectsOnlyWhatTheMachineMitigates(t *testing.T) {
	snap, err := sysinfo.Collect("../sysinfo/testdata/amd-zen4-baremetal")
	if err != nil {
		t.Fatal(err)
	}
	off := *snap
	off.Cmdline.Raw = snap.Cmdline.Raw + " mitigations=off"
	off.BootID = "boot-off"
	a := mkRun("a1", "a", res("syscall-basic", nil, lower("ns/op", 100, 101, 99, 100, 102, 98, 100, 101)))
	b := mkRun("b1", "b", res("syscall-basic", nil, lower("ns/op", 80, 81, 79, 80, 82, 78, 80, 81)))
	a.Env, b.Env = snap, &off
	rep, err := pair(side("a", []*run.Run{a}), side("b", []*run.Run{b}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := mitigation.KnowledgeBase()
	mitigated := map[string]bool{}
	for _, v := range snap.Vulnerabilities {
		if v.State == mitigation.Mitigated {
			e, _ := kb.LookupVulnerability(v.Name)
			mitigated[e.CommonName] = true
		}
	}
	var got *CmdlineChange
	for i := range rep.Meaning.Cmdline {
		if slices.Contains(rep.Meaning.Cmdline[i].Tokens, "mitigations=off") {
			got = &rep.Meaning.Cmdline[i]
		}
	}
	if got == nil {
		t.Fatalf("no command-line change in %+v", rep.Meaning.Cmdline)
	}
	if len(got.Affects) == 0 {
		t.Fatal("mitigations=off affects nothing on a machine with mitigated files")
	}
	for _, n := range got.Affects {
		if !mitigated[n] {
			t.Errorf("mitigations=off is said to govern %s, which this machine does not show mitigated", n)
		}
	}
	// The same change between sides without environments: the table's list.
	fallback := twoSides(t, envOn(), envOff())
	for _, c := range fallback.Meaning.Cmdline {
		if slices.Contains(c.Tokens, "mitigations=off") && len(c.Affects) <= len(got.Affects) {
			t.Errorf("without environments mitigations=off governs %d, with Zen 4's %d: want the whole table", len(c.Affects), len(got.Affects))
		}
	}
}

// TestSpecControlIsAMitigationChange: runs of one boot, one with `run
// --spec ib=force` (a per-process control, prctl) and one plain, differ in
// a mitigation although the command line and the vulnerability files do
// not (issue 47): no same-mitigations warning or conclusion, the change
// named in Env and the conclusion. Runs that requested the same control
// are the same state.
func TestSpecControlIsAMitigationChange(t *testing.T) {
	ib := []run.SpecControl{{Control: "ib", Requested: "force", Kernel: "prctl enable", Expected: "force mitigated"}}
	mk := func(id string, base float64, sc []run.SpecControl) *run.Run {
		r := res("sched-pipe", nil, lower("usecs_per_op", base, base+1, base-1, base, base+2, base-2, base, base+1))
		r.SpecControls = sc
		return mkRun(id, id, r)
	}
	for _, tt := range []struct {
		name   string
		a, b   []run.SpecControl
		change []SpecControlChange
	}{
		{"plain against ib=force", nil, ib, []SpecControlChange{{Control: "ib", A: "none", B: "force"}}},
		{"ib=force against plain", ib, nil, []SpecControlChange{{Control: "ib", A: "force", B: "none"}}},
		{"ib=force on both", ib, ib, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := pair(side("a", []*run.Run{mk("a1", 10, tt.a)}, envOn()), side("b", []*run.Run{mk("b1", 14, tt.b)}, envOn()), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rep.Env.SpecControls, tt.change) || !slices.Equal(rep.Conclusion.SpecControls, tt.change) {
				t.Errorf("Env.SpecControls %v, conclusion %v, want %v", rep.Env.SpecControls, rep.Conclusion.SpecControls, tt.change)
			}
			same := rep.Conclusion.Kind == ConclusionSameMitigations
			if same != (tt.change == nil) || rep.HasWarning(KindSameMitigations) != same {
				t.Errorf("conclusion %q, same-mitigations warning %v; want a mitigation change: %v", rep.Conclusion.Kind, rep.HasWarning(KindSameMitigations), tt.change != nil)
			}
		})
	}
}
