package compare

import (
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
)

// TestCompareAgreesWithClassifier: for every parameter of the knowledge
// base and every value it lists, compare's "a mitigation parameter
// changed" answer is the classifier's (a parameter Classify picks out as
// other than a toggle). A second list of mitigation tokens in compare
// would drift from this and fail here.
func TestCompareAgreesWithClassifier(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range kb.Params {
		tokens := []string{p.Key}
		for _, v := range p.Values {
			tokens = append(tokens, p.Key+"="+v.Value)
		}
		for _, tok := range tokens {
			cls := mitigation.Classify(mitigation.ParseCmdline(tok).Params)
			want := len(cls.Params) == 1 && cls.Params[0].Kind != mitigation.KindToggle
			for _, d := range []EnvDiff{{CmdlineAdded: []string{tok}}, {CmdlineRemoved: []string{tok}}} {
				if got := d.MitigationTokensChanged(); got != want {
					t.Errorf("%s: compare says mitigation change %v, the classifier %v", tok, got, want)
				}
			}
			n++
		}
	}
	if n < 100 {
		t.Errorf("only %d tokens checked", n)
	}
}

// TestDriftedTokens: the tokens on which compare's old list and the
// classifier disagreed.
func TestDriftedTokens(t *testing.T) {
	for tok, want := range map[string]bool{
		"its=off":                           false, // not a kernel parameter (indirect_target_selection= is)
		"spectre_v1=off":                    false, // not a kernel parameter (only nospectre_v1)
		"nopku":                             false, // hardening: a confounder, see TestHardeningIsConfounder
		"nosmap":                            false,
		"nosmep":                            false,
		"tsx=on":                            true,
		"nospectre_bhb":                     true,
		"kvm.nx_huge_pages=off":             true,
		"kvm_intel.vmentry_l1d_flush=never": true,
		"spectre-v2=off":                    true, // the kernel's dash spelling
	} {
		if got := (EnvDiff{CmdlineAdded: []string{tok}}).MitigationTokensChanged(); got != want {
			t.Errorf("%s: mitigation change %v, want %v", tok, got, want)
		}
	}
}

// TestHardeningIsConfounder: a hardening switch that differs between the
// sides is listed as a confounder, and does not count as the mitigation
// change being measured.
func TestHardeningIsConfounder(t *testing.T) {
	a, b := envOn(), envOn()
	b["cmdline"] = map[string]any{"raw": "root=/dev/vda quiet nosmap"}
	d := envDiff(side("a", []*run.Run{mkRun("a1", "a")}, a), side("b", []*run.Run{mkRun("b1", "b")}, b))
	if d.MitigationTokensChanged() {
		t.Error("nosmap counted as a mitigation change")
	}
	found := false
	for _, c := range d.Confounders {
		if c.Name == "kernel hardening parameters" && c.A == "(none)" && c.B == "nosmap" {
			found = true
		}
	}
	if !found {
		t.Errorf("confounders = %+v", d.Confounders)
	}
	// Quoted values stay one parameter, as the kernel reads them.
	b["cmdline"] = map[string]any{"raw": `root=/dev/vda quiet dyndbg="file x.c +p"`}
	d = envDiff(side("a", []*run.Run{mkRun("a1", "a")}, a), side("b", []*run.Run{mkRun("b1", "b")}, b))
	if len(d.CmdlineAdded) != 1 || d.CmdlineAdded[0] != `dyndbg="file x.c +p"` {
		t.Errorf("added = %q", d.CmdlineAdded)
	}
}
