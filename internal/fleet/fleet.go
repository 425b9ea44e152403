// Package fleet builds the model of `sectax fleet`: the tax across many
// machines. Runs are grouped by CPU model × kernel release × WSL or not; in
// each group every host with a verified on/off pair (runs labelled on that
// booted with mitigations on, runs labelled off that booted with
// mitigations=off, same CPU and kernel) gives one tax per workload, from
// `sectax compare` of its own two sides; the group's tax is the median of
// its hosts' with a confidence interval across hosts (the host is the
// unit). Nothing here prints.
package fleet

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// Schema names the JSON document of the report.
const Schema = "sectax.fleet/v2"

// Report is the tax across the fleet.
type Report struct {
	Schema string `json:"schema"`
	On     string `json:"on"`
	Off    string `json:"off"`
	// Synthetic is set when any run is synthetic (a generated fixture):
	// every rendering says so.
	Synthetic  bool    `json:"synthetic"`
	Confidence float64 `json:"confidence"`
	Groups     []Group `json:"groups"`
}

// Group is one CPU model × kernel × WSL-or-not.
type Group struct {
	CPU       string `json:"cpu"`
	Kernel    string `json:"kernel"`
	WSL       bool   `json:"wsl"`
	Synthetic bool   `json:"synthetic"`
	// Hosts are all hosts with runs in the group; Paired those with a
	// verified on/off pair.
	Hosts     []string      `json:"hosts"`
	Paired    []string      `json:"paired"`
	Unpaired  []HostNote    `json:"unpaired"`
	Workloads []WorkloadTax `json:"workloads"`
}

// HostNote says why a host has no verified pair.
type HostNote struct {
	Host string `json:"host"`
	Why  string `json:"why"`
}

// WorkloadTax is the tax of one workload's primary metric across the
// paired hosts of a group, in percent (how much slower with mitigations
// on than off): Median is the hosts' median, Interval its confidence
// interval across hosts (nil when the hosts are too few for one).
type WorkloadTax struct {
	Workload string             `json:"workload"`
	Params   string             `json:"params"`
	Metric   string             `json:"metric"`
	Unit     string             `json:"unit"`
	Hosts    int                `json:"hosts"`
	Median   float64            `json:"median_pct"`
	Interval *stats.Interval    `json:"median_pct_interval"`
	PerHost  map[string]float64 `json:"per_host_pct"`
	Warnings []string           `json:"warnings,omitempty"`
}

// Run is one stored run with its environment as decoded JSON.
type Run struct {
	Run *run.Run
	Env map[string]any
}

type key struct {
	cpu, kernel string
	wsl         bool
}

// Build makes the report of runs, with on and off the labels of the two
// sides.
func Build(runs []Run, on, off string) *Report {
	rep := &Report{Schema: Schema, On: on, Off: off, Confidence: stats.Confidence, Groups: []Group{}}
	type hostRuns struct{ on, off []Run }
	groups := map[key]map[string]*hostRuns{}
	synth := map[key]bool{}
	for _, r := range runs {
		if r.Run.Label != on && r.Run.Label != off {
			continue
		}
		k := key{get(r.Env, "cpu.model_name"), get(r.Env, "kernel.release"), hasWSL(r.Env)}
		host := get(r.Env, "hostname")
		if host == "" {
			host = "(unknown host)"
		}
		if groups[k] == nil {
			groups[k] = map[string]*hostRuns{}
		}
		h := groups[k][host]
		if h == nil {
			h = &hostRuns{}
			groups[k][host] = h
		}
		if r.Run.Label == on {
			h.on = append(h.on, r)
		} else {
			h.off = append(h.off, r)
		}
		if isSynthetic(r.Env) {
			synth[k], rep.Synthetic = true, true
		}
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.cpu != b.cpu {
			return a.cpu < b.cpu
		}
		if a.kernel != b.kernel {
			return a.kernel < b.kernel
		}
		return !a.wsl && b.wsl
	})
	for _, k := range keys {
		g := Group{CPU: k.cpu, Kernel: k.kernel, WSL: k.wsl, Synthetic: synth[k], Hosts: []string{}, Paired: []string{},
			Unpaired: []HostNote{}, Workloads: []WorkloadTax{}}
		hosts := make([]string, 0, len(groups[k]))
		for h := range groups[k] {
			hosts = append(hosts, h)
		}
		sort.Strings(hosts)
		type wkey struct{ workload, params, metric, unit string }
		taxes := map[wkey]map[string]float64{}
		var order []wkey
		for _, h := range hosts {
			g.Hosts = append(g.Hosts, h)
			hr := groups[k][h]
			var why string
			switch {
			case len(hr.on) == 0:
				why = fmt.Sprintf("no run labelled %s", on)
			case len(hr.off) == 0:
				why = fmt.Sprintf("no run labelled %s", off)
			default:
				why = strings.TrimSuffix(unverified(hr.on, "on", on)+unverified(hr.off, "off", off), "; ")
			}
			if why != "" {
				g.Unpaired = append(g.Unpaired, HostNote{Host: h, Why: why})
				continue
			}
			cmp, err := compare.CompareSides([]compare.Side{side(on, hr.on), side(off, hr.off)}, compare.Options{})
			if err != nil {
				g.Unpaired = append(g.Unpaired, HostNote{Host: h, Why: err.Error()})
				continue
			}
			g.Paired = append(g.Paired, h)
			for _, r := range cmp.Rows {
				m := r.Sides[0]
				if r.Workload.Control || m == nil || m.Role != compare.RolePrimary {
					continue
				}
				w := r.Workload
				t := (m.Speedup - 1) * 100
				if t != t || t > 1e300 || t < -1e300 {
					continue
				}
				wk := wkey{w.ID, w.ParamsKey, m.Name, m.Unit}
				if taxes[wk] == nil {
					taxes[wk] = map[string]float64{}
					order = append(order, wk)
				}
				taxes[wk][h] = t
			}
		}
		sort.Slice(order, func(i, j int) bool {
			if order[i].workload != order[j].workload {
				return order[i].workload < order[j].workload
			}
			return order[i].params < order[j].params
		})
		for _, wk := range order {
			per := taxes[wk]
			vals := make([]float64, 0, len(per))
			for _, v := range per {
				vals = append(vals, v)
			}
			s := stats.Summarize(vals)
			wt := WorkloadTax{Workload: wk.workload, Params: wk.params, Metric: wk.metric, Unit: wk.unit,
				Hosts: len(vals), Median: s.Center, PerHost: per}
			if s.HasCI {
				wt.Interval = &stats.Interval{Lo: s.Lo, Hi: s.Hi}
			} else {
				wt.Warnings = append(wt.Warnings, fmt.Sprintf("%d hosts are too few for a %.0f%% interval across hosts", len(vals), stats.Confidence*100))
			}
			g.Workloads = append(g.Workloads, wt)
		}
		rep.Groups = append(rep.Groups, g)
	}
	return rep
}

// unverified says why runs of a side did not boot with the mode the side
// stands for ("" when they all did).
func unverified(rs []Run, mode, label string) string {
	for _, r := range rs {
		if m := get(r.Env, "mitigation_mode"); m != mode {
			if m == "" {
				m = "unknown"
			}
			return fmt.Sprintf("run %s labelled %s booted with mitigations %s; ", r.Run.ID, label, m)
		}
	}
	return ""
}

func side(label string, rs []Run) compare.Side {
	runs := make([]*run.Run, len(rs))
	envs := make([]map[string]any, len(rs))
	for i, r := range rs {
		runs[i], envs[i] = r.Run, r.Env
	}
	return compare.RunsSide(label, compare.KindLabel, runs, envs)
}

func get(env map[string]any, path string) string {
	v, _ := compare.Lookup(env, path)
	return v
}

func hasWSL(env map[string]any) bool {
	w, ok := env["wsl"].(map[string]any)
	return ok && w != nil
}

func isSynthetic(env map[string]any) bool {
	b, _ := env["synthetic"].(bool)
	return b
}
