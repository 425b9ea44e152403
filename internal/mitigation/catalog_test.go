package mitigation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// kernelCatalog is testdata/kernel/catalog.json: what the kernel's own
// sources print in the vulnerability files and which parameter values
// they accept (testdata/kernel/README.md says how it is made).
type kernelCatalog struct {
	Schema  string         `json:"schema"`
	Note    string         `json:"note"`
	Sources map[string]any `json:"sources"`
	Lines   []struct {
		Arch      string `json:"arch"`
		File      string `json:"file"`
		Text      string `json:"text"`
		State     State  `json:"state"`
		Mechanism string `json:"mechanism"`
		Partial   bool   `json:"partial"`
		Cmdline   bool   `json:"cmdline"`
		Source    string `json:"source"`
	} `json:"lines"`
	Params []struct {
		Key        string   `json:"key"`
		Arch       []string `json:"arch"`
		Values     []string `json:"values"`
		Flag       bool     `json:"flag"`
		AnyValue   bool     `json:"any_value"`
		KStrToBool bool     `json:"kstrtobool"`
		Source     string   `json:"source"`
		Note       string   `json:"note"`
	} `json:"params"`
}

func loadCatalog(t *testing.T) kernelCatalog {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kernel", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c kernelCatalog
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Schema != "sectax.kernel-catalog/v1" || len(c.Lines) == 0 || len(c.Params) == 0 {
		t.Fatalf("catalog: schema %q, %d lines, %d params", c.Schema, len(c.Lines), len(c.Params))
	}
	for _, l := range c.Lines {
		if _, ok := c.Sources[l.Source]; !ok {
			t.Errorf("catalog line %s %s %q cites unknown source %q", l.Arch, l.File, l.Text, l.Source)
		}
	}
	for _, p := range c.Params {
		if _, ok := c.Sources[p.Source]; !ok {
			t.Errorf("catalog parameter %s cites unknown source %q", p.Key, p.Source)
		}
	}
	return c
}

// TestCatalogLines reads every line the kernel can print the way the
// kernel means it: the state, the mechanism (a knowledge-base mode, for
// every mitigated line), partial exposure, and whether the command line
// can change it on that architecture.
func TestCatalogLines(t *testing.T) {
	c := loadCatalog(t)
	kb := mustKB(t)
	for _, l := range c.Lines {
		where := l.Arch + " " + l.File + " " + l.Text
		e, ok := kb.LookupVulnerability(l.File)
		if !ok {
			t.Errorf("%s: no knowledge-base entry for the file", where)
			continue
		}
		if l.State != NotAffected && !slices.Contains(e.Arch, l.Arch) {
			t.Errorf("%s: the knowledge base's arch %v lacks %s", where, e.Arch, l.Arch)
		}
		v := ParseVulnerability(l.File, l.Text+"\n")
		if v.State != l.State {
			t.Errorf("%s: state %s, the kernel means %s", where, v.State, l.State)
		}
		if v.Partial != l.Partial {
			t.Errorf("%s: partial %v, want %v", where, v.Partial, l.Partial)
		}
		if l.State == Mitigated {
			if l.Mechanism == "" {
				t.Errorf("%s: the catalog gives no mechanism for a mitigated line", where)
			}
			m, ok := kb.ModeOf(l.File, l.Text)
			switch {
			case !ok:
				t.Errorf("%s: mechanism not recognised (want mode %s)", where, l.Mechanism)
			case m.Name != l.Mechanism:
				t.Errorf("%s: mode %s, want %s", where, m.Name, l.Mechanism)
			}
		}
		if got := kb.Changeable(l.Arch, l.File, l.Text); got != l.Cmdline {
			t.Errorf("%s: changeable by the command line %v, want %v", where, got, l.Cmdline)
		}
	}
}

// TestCatalogParams accepts every value the kernel's parsers accept, on
// the architectures that have the parameter.
func TestCatalogParams(t *testing.T) {
	c := loadCatalog(t)
	kb := mustKB(t)
	for _, p := range c.Params {
		kp, ok := kb.LookupParam(p.Key)
		if !ok {
			t.Errorf("%s: not in the knowledge base", p.Key)
			continue
		}
		for _, a := range p.Arch {
			if !slices.Contains(kp.Arch, a) {
				t.Errorf("%s: the knowledge base's arch %v lacks %s", p.Key, kp.Arch, a)
			}
		}
		var tokens []Param
		for _, v := range p.Values {
			tokens = append(tokens, Param{Name: p.Key, Value: v, HasValue: true, Raw: p.Key + "=" + v})
		}
		if p.Flag {
			tokens = append(tokens, Param{Name: p.Key, Raw: p.Key})
		}
		if p.KStrToBool {
			for _, v := range []string{"yes", "true", "On", "no", "false", "oFf"} {
				tokens = append(tokens, Param{Name: p.Key, Value: v, HasValue: true, Raw: p.Key + "=" + v})
			}
		}
		if p.AnyValue {
			tokens = append(tokens, Param{Name: p.Key, Value: "whatever", HasValue: true, Raw: p.Key + "=whatever"})
		}
		for _, tok := range tokens {
			if p.Key == "mitigations" {
				m := Classify([]Param{tok}).ForArch(p.Arch[0])
				if mode, why := m.Mode(); mode == ModeUnknown {
					t.Errorf("%s on %s: mode unknown (%s)", tok.Raw, p.Arch[0], why)
				}
				continue
			}
			if e := EffectOf(tok); e == EffectInvalid || e == EffectNone {
				t.Errorf("%s: effect %q, but the kernel accepts it (%s)", tok.Raw, e, p.Source)
			}
		}
	}
}
