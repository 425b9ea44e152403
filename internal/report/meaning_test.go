package report

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/compare"
)

func meaningOf(t *testing.T, a, b compare.Side) string {
	t.Helper()
	rep := comparison(t, a, b).Comparisons[0]
	return strings.Join(Meaning(rep, "B"), "\n")
}

// TestMeaning checks the sentences both ways round: the study's on → off
// gives protections up, off → on restores them; measured runs name the
// vulnerabilities whose state changed.
func TestMeaning(t *testing.T) {
	on, off := baselineSides(t)
	for _, c := range []struct {
		a, b       compare.Side
		want, nope []string
	}{
		{on, off, []string{
			"syscall-basic, which stresses entry/exit, gains most: B is 2.76× as fast as A",
			"B's command line adds mitigations=off, which gives up the kernel's protections against",
			"Meltdown (rogue data cache load)",
			"B also adds quiet loglevel=0 audit=0 vsyscall=none",
			"This is a WSL 2 guest.",
			"host and other VMs stay protected",
			"published single figures",
		}, []string{"restores", "No significant difference"}},
		{off, on, []string{
			"syscall-basic, which stresses entry/exit, loses most: B is 0.36× as fast as A",
			"B's command line drops mitigations=off, which restores the kernel's protections against",
		}, []string{"gives up", "B also adds"}},
	} {
		got := meaningOf(t, c.a, c.b)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s vs %s: meaning lacks %q:\n%s", c.a.Ref, c.b.Ref, w, got)
			}
		}
		for _, w := range c.nope {
			if strings.Contains(got, w) {
				t.Errorf("%s vs %s: meaning has %q:\n%s", c.a.Ref, c.b.Ref, w, got)
			}
		}
	}
	ra, rb := runSides()
	got := meaningOf(t, ra, rb)
	for _, w := range []string{"B gives up these protections: Meltdown (rogue data cache load): local code could read kernel memory",
		"Negative control ctl-user did not move significantly (p=0.071), but it has no interval of its change (too few samples, or sides of different units), so it cannot vouch for a change of 5.0%",
		"Caution: something besides the mitigations differs"} {
		if !strings.Contains(got, w) {
			t.Errorf("runs: meaning lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "WSL") || strings.Contains(got, "same mitigation settings") {
		t.Errorf("runs on a plain kernel, mitigations on vs off: meaning mentions WSL or same settings:\n%s", got)
	}

	// Two runs of the same setting: the meaning says there is no tax here.
	rb = compare.RunsSide("again", compare.KindLabel, rb.Runs, []map[string]any{ra.Envs[0]})
	rb.Envs[0] = map[string]any{"kernel": map[string]any{"release": "6.18.0"}, "cmdline": map[string]any{"raw": "root=/dev/vda quiet"},
		"mitigation_mode": "on", "boot_id": "b3", "hostname": "box", "cpu": map[string]any{"model_name": "Test CPU", "microcode": "0x10"},
		"vulnerabilities": []any{map[string]any{"name": "meltdown", "raw": "Mitigation: PTI", "state": "mitigated", "mitigation": "PTI"}}}
	got = meaningOf(t, ra, rb)
	if !strings.HasPrefix(got, "Both sides ran with the same mitigation settings, so what follows is not a mitigation tax") ||
		strings.Contains(got, "pays the mitigations") {
		t.Errorf("same settings: meaning does not say so first:\n%s", got)
	}
}

// TestTextOneLiners: the text comparison shows the knowledge base's
// one-liner under each changed vulnerability, and a hint for a file the
// knowledge base does not know.
func TestTextOneLiners(t *testing.T) {
	ra, rb := runSides()
	rb.Envs[0]["vulnerabilities"] = []any{
		map[string]any{"name": "meltdown", "raw": "Vulnerable", "state": "vulnerable"},
		map[string]any{"name": "future_bug", "raw": "Vulnerable", "state": "vulnerable"},
	}
	text := string(render(t, comparison(t, ra, rb), "text", false))
	for _, want := range []string{
		"      meltdown: Mitigation: PTI → Vulnerable\n        Meltdown (rogue data cache load): local code could read kernel memory; mitigation costs\n        entry/exit, context switches\n",
		"      future_bug: (absent) → Vulnerable\n        no knowledge-base entry (a bug newer than this sectax?)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestConclusionNamesSpecControls: a per-process control the sides set
// differently is named in the conclusion's line as a mitigation change,
// whatever the verdict (issue 47).
func TestConclusionNamesSpecControls(t *testing.T) {
	c := compare.Conclusion{Kind: compare.ConclusionDifference, Speedup: 0.78, Workloads: 3, Significant: 2,
		SpecControls: []compare.SpecControlChange{{Control: "ib", A: "none", B: "force"}}}
	got := sideConclusion("B", c, 0.05)
	if !strings.HasSuffix(got, " — a mitigation change: per-process controls (prctl) ib: none → force") || !strings.HasPrefix(got, "B is 0.78×") {
		t.Errorf("conclusion %q", got)
	}
	c.SpecControls = nil
	if got := sideConclusion("B", c, 0.05); strings.Contains(got, "per-process") {
		t.Errorf("conclusion without a control change %q", got)
	}
}
