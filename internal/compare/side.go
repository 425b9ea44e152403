package compare

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// Side kinds.
const (
	KindRun      = "run"
	KindLabel    = "label"
	KindBaseline = "baseline"
)

// Side is one side of a comparison: the runs a reference resolved to, or a
// published baseline.
type Side struct {
	// Ref is the reference as the user gave it.
	Ref  string
	Kind string
	Runs []*run.Run
	// Envs, when set, holds the environment of each run as decoded JSON
	// (parallel to Runs; a nil entry falls back to the run's Env). The
	// store keeps the env as JSON, so this carries fields the Go type of
	// this build does not know.
	Envs []map[string]any
	// Dataset is set for a baseline: its values are published single
	// figures (no samples, no interval, no test).
	Dataset *baseline.Dataset
	// decoded holds the environments envOf has turned into decoded JSON,
	// by the run's *Snapshot (runs read from the store with one
	// environment share one): each is encoded and decoded once, not at
	// every lookup. Shared by the copies of the side; nil in a Side built
	// by hand, which then decodes at every lookup.
	decoded map[*sysinfo.Snapshot]map[string]any
}

// RunsSide is a side of stored runs (kind KindRun or KindLabel); envs is
// optional (see Side.Envs).
func RunsSide(ref, kind string, runs []*run.Run, envs []map[string]any) Side {
	return Side{Ref: ref, Kind: kind, Runs: runs, Envs: envs, decoded: map[*sysinfo.Snapshot]map[string]any{}}
}

// BaselineSide is a side of published figures.
func BaselineSide(ref string, d *baseline.Dataset) Side {
	return Side{Ref: ref, Kind: KindBaseline, Runs: []*run.Run{d.Run()}, Dataset: d}
}

// Published reports whether the side holds published single figures.
func (s Side) Published() bool { return s.Dataset != nil }

// envOf returns the environment of r as decoded JSON. Note: the env is read
// generically, by the agreed JSON names, so that compare keeps working while
// the Go type of the snapshot grows, and sees fields it does not know.
func (s Side) envOf(i int) map[string]any {
	if s.Dataset != nil {
		return s.Dataset.Env
	}
	if i < len(s.Envs) && s.Envs[i] != nil {
		return s.Envs[i]
	}
	r := s.Runs[i]
	if r.Env == nil {
		return nil
	}
	if m, ok := s.decoded[r.Env]; ok {
		return m
	}
	m := decodeEnv(r.Env)
	if s.decoded != nil {
		s.decoded[r.Env] = m
	}
	return m
}

// decodeEnv turns an environment into decoded JSON (nil when it does not
// encode).
func decodeEnv(env *sysinfo.Snapshot) map[string]any {
	b, err := json.Marshal(env)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// Env returns the environment of the i-th run as decoded JSON (nil when
// unknown).
func (s Side) Env(i int) map[string]any { return s.envOf(i) }

// Lookup returns the value of a dotted path in a decoded env, rendered as
// text, and whether it is known.
func Lookup(env map[string]any, path string) (string, bool) {
	v, ok := lookup(env, path)
	if !ok {
		return "", false
	}
	return str(v), true
}

// lookup returns the value at a dotted path ("cpu.model_name") of a decoded
// JSON object, and whether it is known (present, not null, not "").
func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, p := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = obj[p]
		if !ok {
			return nil, false
		}
	}
	switch v := cur.(type) {
	case nil:
		return nil, false
	case string:
		return v, v != ""
	}
	return cur, true
}

// str renders a decoded JSON scalar.
func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return run.FormatParam(x)
	case bool:
		return fmt.Sprint(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// bootKey is the boot a run was made in: env.boot_id, else the run itself
// (a run whose boot is unknown counts as a boot of its own).
func (s Side) bootKey(i int) string {
	if v, ok := lookup(s.envOf(i), "boot_id"); ok {
		return "boot:" + str(v)
	}
	return "run:" + s.Runs[i].ID
}

// hostKey is the host a run was made on (host), else the run itself.
// When a side spans several hosts, the host is the unit.
func (s Side) hostKey(i int) string {
	if h, ok := s.host(i); ok {
		return "host:" + h
	}
	return "run:" + s.Runs[i].ID
}

// host is the host of run i: env.hostname, or for a run measured in the
// lab (whose guest has no hostname, the kernel's "(none)") the lab and
// its kernel (run.Lab.Host).
func (s Side) host(i int) (string, bool) {
	if l := s.Runs[i].Lab; l != nil {
		return l.Host(), true
	}
	if v, ok := lookup(s.envOf(i), "hostname"); ok {
		return str(v), true
	}
	return "", false
}

// hosts are the distinct hosts of the side's runs (host), sorted.
func (s Side) hosts() []string {
	seen := map[string]bool{}
	var out []string
	for i := range s.Runs {
		if h, ok := s.host(i); ok && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out
}

// synthetic reports whether any run of the side is synthetic (env
// synthetic: true, set by the fleet fixture).
func synthetic(s Side) bool {
	for i := range s.Runs {
		if v, ok := lookup(s.envOf(i), "synthetic"); ok && v == true {
			return true
		}
	}
	return false
}

// values returns the distinct known values of an env path (or of a run
// field when path starts with "run."), sorted.
func (s Side) values(path string) []string {
	seen := map[string]bool{}
	var out []string
	for i := range s.Runs {
		var v any
		var ok bool
		switch path {
		case "run.tool_version":
			if s.Dataset == nil && s.Runs[i].ToolVersion != "" {
				v, ok = s.Runs[i].ToolVersion, true
			} else {
				v, ok = lookup(s.envOf(i), "sectax_version")
			}
		case "run.perf_version":
			v, ok = s.Runs[i].PerfVersion, s.Runs[i].PerfVersion != ""
		default:
			v, ok = lookup(s.envOf(i), path)
		}
		if !ok || unknownValue(path, v) {
			continue
		}
		if k := str(v); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// unknownValue recognises the values the env writes for "could not tell":
// mitigation mode "unknown", and 0 online CPUs.
func unknownValue(path string, v any) bool {
	switch path {
	case "mitigation_mode":
		return v == "unknown"
	case "cpu.online":
		return v == float64(0)
	}
	return false
}
