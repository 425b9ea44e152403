package workload

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Params are the resolved, validated parameters of one workload: int64 or
// string values keyed by ParamSpec.Key.
type Params map[string]any

// Int returns an integer parameter (0 when absent).
func (p Params) Int(key string) int64 {
	v, _ := p[key].(int64)
	return v
}

// Str returns a string parameter ("" when absent).
func (p Params) Str(key string) string {
	v, _ := p[key].(string)
	return v
}

// Clone returns a copy of p.
func (p Params) Clone() Params {
	q := make(Params, len(p))
	for k, v := range p {
		q[k] = v
	}
	return q
}

// Map returns p as the plain map stored in run documents.
func (p Params) Map() map[string]any { return map[string]any(p.Clone()) }

// Resolve returns the parameters of a workload for a suite with the user's
// overrides (raw KEY=VALUE text already split) applied and validated.
func Resolve(info Info, suite Suite, overrides map[string]string) (Params, error) {
	p := make(Params, len(info.Params))
	for _, spec := range info.Params {
		p[spec.Key] = spec.ValueFor(suite)
	}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		spec, ok := info.Param(k)
		if !ok {
			return nil, &UsageError{Msg: fmt.Sprintf("workload %s has no parameter %q (accepted: %s)",
				info.ID, k, strings.Join(paramKeys(info), ", "))}
		}
		v, err := ParseValue(info.ID, spec, overrides[k])
		if err != nil {
			return nil, err
		}
		p[k] = v
	}
	return p, nil
}

// ParseValue parses and checks one value for spec.
func ParseValue(id string, spec ParamSpec, raw string) (any, error) {
	if spec.IsInt() {
		s := strings.ReplaceAll(raw, "_", "")
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, &UsageError{Msg: fmt.Sprintf("%s.%s=%q is not an integer (accepted: %d..%d)",
				id, spec.Key, raw, spec.Min, spec.Max)}
		}
		if n < spec.Min || n > spec.Max {
			return nil, &UsageError{Msg: fmt.Sprintf("%s.%s=%d is out of range (accepted: %d..%d)",
				id, spec.Key, n, spec.Min, spec.Max)}
		}
		return n, nil
	}
	if spec.Free {
		if raw == "" {
			return nil, &UsageError{Msg: fmt.Sprintf("%s.%s must not be empty", id, spec.Key)}
		}
		words := strings.Fields(raw)
		if !spec.Operands && len(words) > 0 {
			words = words[:1]
		}
		for _, w := range words {
			if strings.HasPrefix(w, "-") {
				return nil, &UsageError{Msg: fmt.Sprintf("%s.%s=%q: %q starts with '-', which would become an option of the program it is passed to; name it another way (./%s)", id, spec.Key, raw, w, w)}
			}
		}
		return raw, nil
	}
	for _, c := range spec.Choices {
		if raw == c {
			return raw, nil
		}
	}
	return nil, &UsageError{Msg: fmt.Sprintf("%s.%s=%q is not accepted (accepted: %s)",
		id, spec.Key, raw, strings.Join(spec.Choices, ", "))}
}

func paramKeys(info Info) []string {
	var ks []string
	for _, p := range info.Params {
		ks = append(ks, p.Key)
	}
	return ks
}

// ParseOverrides parses --param values of the form ID.KEY=VALUE into a map
// from workload id to KEY=VALUE pairs. Workload ids are checked against reg.
func ParseOverrides(reg *Registry, args []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, a := range args {
		lhs, val, ok := strings.Cut(a, "=")
		id, key, ok2 := strings.Cut(lhs, ".")
		if !ok || !ok2 || id == "" || key == "" {
			return nil, &UsageError{Msg: fmt.Sprintf("--param %q: want ID.KEY=VALUE, e.g. sched-pipe.loops=200000", a)}
		}
		if _, err := reg.Lookup(id); err != nil {
			return nil, err
		}
		if out[id] == nil {
			out[id] = map[string]string{}
		}
		out[id][key] = val
	}
	return out, nil
}
