package compare

import (
	"slices"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
)

// EnvDiff is what differs between the environments of the two sides.
type EnvDiff struct {
	// CmdlineAdded and CmdlineRemoved are kernel command-line tokens B has
	// and A lacks, and the reverse; nil when a side's command line is
	// unknown.
	CmdlineAdded   []string `json:"cmdline_added"`
	CmdlineRemoved []string `json:"cmdline_removed"`
	CmdlineKnown   bool     `json:"cmdline_known"`
	// Vulnerabilities whose state or mitigation text changed.
	Vulnerabilities []VulnChange `json:"vulnerabilities"`
	// Confounders are differences other than the mitigations.
	Confounders []Confounder `json:"confounders"`
	// SpecControls are the per-process speculation controls (prctl, `run
	// --spec`) whose requested state differs between the sides' runs: a
	// mitigation change the command line and the vulnerability files do
	// not show. Absent when they agree.
	SpecControls []SpecControlChange `json:"spec_controls,omitempty"`
}

// SpecControlChange is a per-process control (ssbd, ib, l1d_flush) the
// runs of a side requested differently from the other's: A and B are the
// requested states ("force", "on", "off"), "none" for runs that set none,
// several joined with " | ".
type SpecControlChange struct {
	Control string `json:"control"`
	A       string `json:"a"`
	B       string `json:"b"`
}

// String renders "ib: none → force".
func (c SpecControlChange) String() string { return c.Control + ": " + c.A + " → " + c.B }

// VulnChange is a vulnerability whose sysfs text changed; A or B is
// "(absent)" when a side does not list it.
type VulnChange struct {
	Name   string `json:"name"`
	A      string `json:"a"`
	B      string `json:"b"`
	StateA string `json:"state_a,omitempty"`
	StateB string `json:"state_b,omitempty"`
	// Explain is the knowledge base's reading of the change; OneLiner what
	// the vulnerability exposes and what its mitigation costs.
	Explain  string `json:"explain,omitempty"`
	OneLiner string `json:"one_liner,omitempty"`
}

// String renders "meltdown: Mitigation: PTI → Vulnerable".
func (v VulnChange) String() string { return v.Name + ": " + v.A + " → " + v.B }

// Confounder is an environment property that differs between the sides.
type Confounder struct {
	Name string `json:"name"`
	Path string `json:"path"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// Absent stands for a vulnerability a side does not list.
const Absent = "(absent)"

// confounderPaths are the properties that must not differ for a clean
// measurement of the mitigations' cost, by display name. Paths starting
// with "run." are fields of the run document; the rest are env paths.
var confounderPaths = []struct{ name, path string }{
	{"host", "hostname"},
	{"kernel release", "kernel.release"},
	{"CPU vendor", "cpu.vendor"},
	{"CPU model", "cpu.model_name"},
	{"microcode", "cpu.microcode"},
	{"online CPUs", "cpu.online"},
	{"memory", "memory.total_bytes"},
	{"hypervisor", "hypervisor.vendor"},
	{"running in a VM", "hypervisor.guest"},
	{"WSL version", "wsl.wsl_package_version"},
	{"SMT active", "smt.active"},
	{"SMT control", "smt.control"},
	{"sectax version", "run.tool_version"},
	{"perf version", "run.perf_version"},
	{"Go version", "go_version"},
	{"Go toolchain (go-build)", "go_toolchain"},
}

// MitigationsChanged reports whether a mitigation differs between the
// sides as their runs recorded it: a mitigation parameter of the command
// line, a vulnerability file, or a per-process control. It is the one
// answer to "did a mitigation change" (the same-mitigations warning and
// conclusion, and decide's savings through them).
func (d EnvDiff) MitigationsChanged() bool {
	return d.MitigationTokensChanged() || len(d.Vulnerabilities) > 0 || len(d.SpecControls) > 0
}

// MitigationTokensChanged reports whether a mitigation-controlling kernel
// parameter was added or removed. Which parameters those are is the
// knowledge base's answer (mitigation.IsMitigationParam), the one the
// classifier uses too. Hardening switches (nopku, nosmap, nosmep) are not
// among them: they are security relevant but no mitigation, so a change of
// one is a confounder (see envDiff), not the experiment.
func (d EnvDiff) MitigationTokensChanged() bool {
	for _, t := range append(append([]string{}, d.CmdlineAdded...), d.CmdlineRemoved...) {
		if mitigation.IsMitigationParam(t) {
			return true
		}
	}
	return false
}

// cmdline returns the parameters of the first run of s with a known
// command line, as written, split the way the kernel splits them.
func cmdline(s Side) ([]string, bool) {
	for i := range s.Runs {
		if v, ok := lookup(s.envOf(i), "cmdline.raw"); ok {
			var out []string
			for _, p := range mitigation.ParseCmdline(str(v)).Params {
				out = append(out, p.Raw)
			}
			return out, true
		}
	}
	return nil, false
}

// specControls returns, per control, the states the runs of s requested
// for their workloads ("none" for a result that set none of it, when
// another did), sorted; nil when no run set any.
func specControls(s Side) map[string][]string {
	out := map[string][]string{}
	results := 0
	for _, r := range s.Runs {
		for _, res := range r.Results {
			results++
			for _, c := range res.SpecControls {
				if !slices.Contains(out[c.Control], c.Requested) {
					out[c.Control] = append(out[c.Control], c.Requested)
				}
			}
		}
	}
	for c := range out {
		n := 0
		for _, r := range s.Runs {
			for _, res := range r.Results {
				if slices.ContainsFunc(res.SpecControls, func(x run.SpecControl) bool { return x.Control == c }) {
					n++
				}
			}
		}
		if n < results {
			out[c] = append(out[c], "none")
		}
		sort.Strings(out[c])
	}
	return out
}

// specControlChanges compares the per-process controls of two sides.
// A published side (no runs) records none, so nothing is said of it.
func specControlChanges(a, b Side) []SpecControlChange {
	if a.Published() || b.Published() {
		return nil
	}
	ca, cb := specControls(a), specControls(b)
	var names []string
	for c := range ca {
		names = append(names, c)
	}
	for c := range cb {
		if _, ok := ca[c]; !ok {
			names = append(names, c)
		}
	}
	sort.Strings(names)
	var out []SpecControlChange
	for _, c := range names {
		va, vb := strings.Join(ca[c], " | "), strings.Join(cb[c], " | ")
		if va == "" {
			va = "none"
		}
		if vb == "" {
			vb = "none"
		}
		if va != vb {
			out = append(out, SpecControlChange{Control: c, A: va, B: vb})
		}
	}
	return out
}

// hardening returns the hardening switches among tokens, or "(none)".
func hardening(tokens []string) string {
	var out []string
	for _, t := range tokens {
		if mitigation.IsHardeningParam(t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, " ")
}

// vulns returns name → entry of the first run of s that lists
// vulnerabilities, and the names in order.
func vulns(s Side) (map[string]map[string]any, []string) {
	for i := range s.Runs {
		v, ok := lookup(s.envOf(i), "vulnerabilities")
		list, isList := v.([]any)
		if !ok || !isList || len(list) == 0 {
			continue
		}
		out := map[string]map[string]any{}
		var names []string
		for _, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			n, _ := lookup(m, "name")
			name := str(n)
			if name == "" || out[name] != nil {
				continue
			}
			out[name] = m
			names = append(names, name)
		}
		return out, names
	}
	return nil, nil
}

func field(m map[string]any, k string) string {
	if v, ok := lookup(m, k); ok {
		return str(v)
	}
	return ""
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	out := []string{}
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
			in[x] = true // once
		}
	}
	return out
}

func envDiff(a, b Side) EnvDiff {
	d := EnvDiff{Vulnerabilities: []VulnChange{}, Confounders: []Confounder{}}
	ta, oka := cmdline(a)
	tb, okb := cmdline(b)
	if oka && okb {
		d.CmdlineKnown = true
		d.CmdlineAdded, d.CmdlineRemoved = minus(tb, ta), minus(ta, tb)
	}
	va, na := vulns(a)
	vb, nb := vulns(b)
	if va != nil && vb != nil {
		names := append(append([]string{}, na...), minus(nb, na)...)
		sort.Strings(names)
		for _, n := range names {
			ea, eb := va[n], vb[n]
			c := VulnChange{Name: n, A: Absent, B: Absent}
			if ea != nil {
				c.A, c.StateA = field(ea, "raw"), field(ea, "state")
			}
			if eb != nil {
				c.B, c.StateB = field(eb, "raw"), field(eb, "state")
			}
			if ea != nil && eb != nil && c.StateA == c.StateB && field(ea, "mitigation") == field(eb, "mitigation") && c.A == c.B {
				continue
			}
			d.Vulnerabilities = append(d.Vulnerabilities, c)
		}
	}
	for _, c := range confounderPaths {
		xa, xb := a.values(c.path), b.values(c.path)
		if len(xa) == 0 || len(xb) == 0 {
			continue // unknown on a side: not a difference
		}
		ja, jb := strings.Join(xa, " | "), strings.Join(xb, " | ")
		if ja != jb {
			d.Confounders = append(d.Confounders, Confounder{Name: c.name, Path: c.path, A: ja, B: jb})
		}
	}
	d.SpecControls = specControlChanges(a, b)
	if ha, hb := hardening(ta), hardening(tb); d.CmdlineKnown && ha != hb {
		d.Confounders = append(d.Confounders, Confounder{Name: "kernel hardening parameters", Path: "cmdline.raw", A: ha, B: hb})
	}
	return d
}
