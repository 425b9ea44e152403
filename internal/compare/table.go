package compare

import (
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
)

// EnvRow is one environment property of both sides, side by side; A or B
// is "" when a side does not record it.
type EnvRow struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	A       string `json:"a"`
	B       string `json:"b"`
	Differs bool   `json:"differs"`
}

// VulnRow is one vulnerability file of either side with what the
// knowledge base says is at stake. A or B is "" when the side's file is
// absent; Recorded says whether the side records its files at all.
type VulnRow struct {
	Name      string `json:"name"`
	A         string `json:"a"`
	B         string `json:"b"`
	RecordedA bool   `json:"recorded_a"`
	RecordedB bool   `json:"recorded_b"`
	Differs   bool   `json:"differs"`
	OneLiner  string `json:"one_liner,omitempty"`
}

// envRows are the environment properties shown side by side, by display
// name and env JSON path.
var envRows = []struct{ name, path string }{
	{"host name", "hostname"},
	{"operating system", "os_release"},
	{"kernel", "kernel.release"},
	{"mitigations", "mitigation_mode"},
	{"why", "mitigation_mode_reason"},
	{"CPU", "cpu.model_name"},
	{"CPU vendor", "cpu.vendor"},
	{"microcode", "cpu.microcode"},
	{"online CPUs", "cpu.online"},
	{"SMT active", "smt.active"},
	{"memory (bytes)", "memory.total_bytes"},
	{"hypervisor", "hypervisor.vendor"},
	{"WSL version", "wsl.version"},
	{"WSL package", "wsl.wsl_package_version"},
	{"distro", "wsl.distro"},
	{"boot id", "boot_id"},
	{"kernel command line", "cmdline.raw"},
}

// sideValues returns the distinct values of an env path over the runs of
// a side, in run order, joined by " | ".
func sideValues(s Side, path string) string {
	seen := map[string]bool{}
	var out []string
	for i := range s.Runs {
		v, ok := Lookup(s.Env(i), path)
		if ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return strings.Join(out, " | ")
}

// environment lists the environments side by side.
func environment(a, b Side) []EnvRow {
	rows := []EnvRow{}
	for _, r := range envRows {
		va, vb := sideValues(a, r.path), sideValues(b, r.path)
		if va == "" && vb == "" {
			continue
		}
		rows = append(rows, EnvRow{Name: r.name, Path: r.path, A: va, B: vb, Differs: va != "" && vb != "" && va != vb})
	}
	return rows
}

// sideVulns returns the raw line of each vulnerability file of the first
// run of s that lists them, and the names in order.
func sideVulns(s Side) (map[string]string, []string) {
	for i := range s.Runs {
		list, ok := s.Env(i)["vulnerabilities"].([]any)
		if !ok || len(list) == 0 {
			continue
		}
		out := map[string]string{}
		var names []string
		for _, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			name, _ := m["name"].(string)
			if name == "" {
				continue
			}
			if _, dup := out[name]; dup {
				continue
			}
			raw, _ := m["raw"].(string)
			if raw == "" {
				raw, _ = m["state"].(string)
			}
			out[name] = raw
			names = append(names, name)
		}
		return out, names
	}
	return nil, nil
}

// allVulns lists every vulnerability file of either side with what the
// knowledge base says about it.
func allVulns(a, b Side) []VulnRow {
	va, na := sideVulns(a)
	vb, nb := sideVulns(b)
	rows := []VulnRow{}
	if va == nil && vb == nil {
		return rows
	}
	seen := map[string]bool{}
	var names []string
	for _, n := range append(na, nb...) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ra, oka := va[n]
		rb, okb := vb[n]
		r := VulnRow{Name: n, A: ra, B: rb, RecordedA: va != nil, RecordedB: vb != nil, Differs: oka && okb && ra != rb}
		r.OneLiner, _ = mitigation.OneLiner(n)
		rows = append(rows, r)
	}
	return rows
}
