package compare

import (
	"sort"
	"strings"
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
}

// VulnChange is a vulnerability whose sysfs text changed; A or B is
// "(absent)" when a side does not list it.
type VulnChange struct {
	Name   string `json:"name"`
	A      string `json:"a"`
	B      string `json:"b"`
	StateA string `json:"state_a,omitempty"`
	StateB string `json:"state_b,omitempty"`
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

// mitigationTokens are command-line parameters that control mitigations;
// a change of one of them is the experiment, not a confounder.
var mitigationTokens = []string{"mitigations", "nopti", "pti", "spectre_v2", "spectre_v2_user", "spectre_v1",
	"nospectre_v1", "nospectre_v2", "spectre_bhi", "mds", "tsx_async_abort", "mmio_stale_data", "retbleed",
	"spec_rstack_overflow", "srbds", "l1tf", "gather_data_sampling", "reg_file_data_sampling", "nosmt",
	"spec_store_bypass_disable", "nospec_store_bypass_disable", "kpti", "ssbd", "l1d_flush", "its",
	"indirect_target_selection", "tsa", "vmscape", "nopku", "nosmap", "nosmep"}

// MitigationTokensChanged reports whether a mitigation-controlling kernel
// parameter was added or removed.
func (d EnvDiff) MitigationTokensChanged() bool {
	for _, t := range append(append([]string{}, d.CmdlineAdded...), d.CmdlineRemoved...) {
		key, _, _ := strings.Cut(t, "=")
		for _, m := range mitigationTokens {
			if key == m {
				return true
			}
		}
	}
	return false
}

// cmdline returns the tokens of the first run of s with a known command
// line.
func cmdline(s Side) ([]string, bool) {
	for i := range s.Runs {
		if v, ok := lookup(s.envOf(i), "cmdline.raw"); ok {
			return strings.Fields(str(v)), true
		}
	}
	return nil, false
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
	return d
}
