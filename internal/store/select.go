package store

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/exit"
)

// BySelector is a reference resolved by side selectors.
const BySelector Match = "selector"

// selectorKeys are the selector prefixes a side reference may combine
// with commas: label:on,cpu:EPYC,kernel:6.18.0,host:box.
var selectorKeys = []string{"label", "host", "cpu", "kernel"}

// Selector is a parsed side selector: every condition must hold. Label,
// Host and Kernel match exactly; CPU matches a part of the CPU model name,
// ignoring case ("cpu:EPYC 7763").
type Selector struct {
	Label, Host, CPU, Kernel string
}

// SelectorError says that a side selector is malformed.
type SelectorError struct{ Msg string }

// ExitKind says that a malformed selector is a usage error.
func (e *SelectorError) ExitKind() exit.Kind { return exit.Usage }

func (e *SelectorError) Error() string { return e.Msg }

// IsSelector reports whether ref starts with a selector key.
func IsSelector(ref string) bool {
	for _, k := range selectorKeys {
		if strings.HasPrefix(ref, k+":") {
			return true
		}
	}
	return false
}

// ParseSelector parses "key:value[,key:value]...". A comma that does not
// start another key:value belongs to the value (CPU names may hold one).
func ParseSelector(ref string) (Selector, error) {
	var sel Selector
	var parts []string
	for _, p := range strings.Split(ref, ",") {
		if len(parts) > 0 && !IsSelector(p) {
			parts[len(parts)-1] += "," + p
			continue
		}
		parts = append(parts, p)
	}
	seen := map[string]bool{}
	for _, p := range parts {
		k, v, _ := strings.Cut(p, ":")
		v = strings.TrimSpace(v)
		if !IsSelector(p) {
			return sel, &SelectorError{fmt.Sprintf("side %q: %q is not one of %s followed by a value", ref, p, strings.Join(selectorKeys, ":, ")+":")}
		}
		if v == "" {
			return sel, &SelectorError{fmt.Sprintf("side %q: %s: needs a value", ref, k)}
		}
		if seen[k] {
			return sel, &SelectorError{fmt.Sprintf("side %q: %s: given twice", ref, k)}
		}
		seen[k] = true
		switch k {
		case "label":
			sel.Label = v
		case "host":
			sel.Host = v
		case "cpu":
			sel.CPU = v
		case "kernel":
			sel.Kernel = v
		}
	}
	return sel, nil
}

// Matches reports whether a run with this label and environment (decoded
// JSON, as Summary.Env) is selected.
func (s Selector) Matches(label string, env map[string]any) bool {
	return (s.Label == "" || label == s.Label) &&
		(s.Host == "" || envString(env, "hostname") == s.Host) &&
		(s.Kernel == "" || envString(env, "kernel", "release") == s.Kernel) &&
		(s.CPU == "" || strings.Contains(strings.ToLower(envString(env, "cpu", "model_name")), strings.ToLower(s.CPU)))
}

// envString is the string at a path of a decoded env ("" when absent).
func envString(env map[string]any, path ...string) string {
	var cur any = env
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[p]
	}
	s, _ := cur.(string)
	return s
}

// resolveSelector returns the runs a selector picks, oldest first, or a
// *NotFoundError that lists the hosts, CPU models and kernels there are.
func resolveSelector(ref string, all []Summary) ([]string, Match, error) {
	sel, err := ParseSelector(ref)
	if err != nil {
		return nil, "", err
	}
	var ids []string
	for _, s := range all {
		if sel.Matches(s.Label, s.Env) {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) > 0 {
		return ids, BySelector, nil
	}
	return nil, "", &NotFoundError{Ref: ref, Candidates: selectorCandidates(all)}
}

func selectorCandidates(all []Summary) []string {
	seen := map[string]bool{}
	var out []string
	add := func(k, v string) {
		if v != "" && !seen[k+v] {
			seen[k+v] = true
			out = append(out, k+":"+v)
		}
	}
	for _, s := range all {
		add("label", s.Label)
		add("host", envString(s.Env, "hostname"))
		add("cpu", envString(s.Env, "cpu", "model_name"))
		add("kernel", envString(s.Env, "kernel", "release"))
	}
	sort.Strings(out)
	return out
}
