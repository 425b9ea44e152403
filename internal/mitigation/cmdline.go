package mitigation

import (
	"errors"
	"fmt"
	"strings"
)

// Param is one kernel command-line parameter, split the way the kernel's
// next_arg() (lib/cmdline.c) splits it.
type Param struct {
	// Name is the part before the first '=', with surrounding double quotes
	// removed ("mitigations", "nosmt", "kvm.nx_huge_pages").
	Name string `json:"name"`
	// Value is the part after the first '=', quotes removed; "" for a flag.
	Value string `json:"value,omitempty"`
	// HasValue tells "foo=" (true, empty value) from "foo" (false).
	HasValue bool `json:"has_value,omitempty"`
	// Raw is the token exactly as written on the command line.
	Raw string `json:"raw"`
}

// Key is the name the kernel matches on: it treats '-' and '_' in a
// parameter name as the same character (parameq() in kernel/params.c), so
// "spectre-v2" and "spectre_v2" are one parameter.
func (p Param) Key() string { return strings.ReplaceAll(p.Name, "-", "_") }

// String renders the parameter as it would be written on a command line,
// quoting the value when it contains white space.
func (p Param) String() string {
	if !p.HasValue {
		return p.Name
	}
	v := p.Value
	if strings.ContainsAny(v, " \t\n\v\f\r") {
		v = `"` + v + `"`
	}
	return p.Name + "=" + v
}

// Cmdline is a parsed kernel command line.
type Cmdline struct {
	// Params are the kernel parameters in command-line order.
	Params []Param
	// InitArgs are the words after a lone "--": the kernel passes them to
	// init and does not interpret them. It is nil when there is no "--" and
	// non-nil (possibly empty) when there is one.
	InitArgs []string
}

// isSpace is the kernel's isspace() on ASCII.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// ParseCmdline splits a kernel command line (the text of /proc/cmdline) into
// parameters exactly as the kernel does: white space separates, double
// quotes group (`foo="a b"` is one parameter with value `a b`), the first
// '=' splits name from value, and a lone "--" ends the kernel's parameters.
// It never fails: every input has a parse, as it has for the kernel.
func ParseCmdline(raw string) Cmdline {
	var c Cmdline
	s := raw
	for {
		s = strings.TrimLeft(s, " \t\n\v\f\r\x00")
		if s == "" {
			return c
		}
		p, rest := nextArg(s)
		if !p.HasValue && p.Raw == "--" {
			c.InitArgs = append([]string{}, strings.Fields(strings.ReplaceAll(rest, "\x00", " "))...)
			return c
		}
		c.Params = append(c.Params, p)
		s = rest
	}
}

// nextArg is lib/cmdline.c next_arg(): it returns the first parameter of s
// (which starts with a non-space) and the rest.
func nextArg(s string) (Param, string) {
	start := 0
	inQuote, quoted := false, false
	if s[0] == '"' {
		start, inQuote, quoted = 1, true, true
	}
	i := start
	equals := -1
	for ; i < len(s); i++ {
		c := s[i]
		if c == 0 || (isSpace(c) && !inQuote) {
			break
		}
		// The kernel keeps the index of the first '=' and uses 0 as "none",
		// so a parameter that starts with '=' has no value.
		if equals < 0 && c == '=' && i > start {
			equals = i
		}
		if c == '"' {
			inQuote = !inQuote
		}
	}
	raw := s[:i]
	arg := s[start:i]
	rest := ""
	if i < len(s) {
		rest = s[i+1:]
	}
	p := Param{Raw: raw}
	if equals < 0 {
		p.Name = arg
	} else {
		p.Name = s[start:equals]
		p.HasValue = true
		p.Value = s[equals+1 : i]
		if strings.HasPrefix(p.Value, `"`) {
			p.Value = p.Value[1:]
			if strings.HasSuffix(p.Value, `"`) {
				p.Value = p.Value[:len(p.Value)-1]
			}
			return p, rest
		}
	}
	if quoted && strings.HasSuffix(arg, `"`) {
		if p.HasValue {
			p.Value = strings.TrimSuffix(p.Value, `"`)
		} else {
			p.Name = strings.TrimSuffix(p.Name, `"`)
		}
	}
	return p, rest
}

// ErrParams is wrapped by every error ParseParams returns.
var ErrParams = errors.New("bad kernel parameters")

// ParseParams parses a PARAMS string a user typed ("mitigations=off
// audit=0") into parameters. Unlike ParseCmdline it refuses what is almost
// certainly a mistake: an unbalanced double quote, a "--" (init arguments
// cannot be set this way), a parameter with an empty name, or a non-ASCII
// or control character (the kernel command line and .wslconfig both need
// plain ASCII).
func ParseParams(s string) ([]Param, error) {
	if strings.Count(s, `"`)%2 != 0 {
		return nil, fmt.Errorf("%w: unbalanced double quote in %q; close the quote or remove it", ErrParams, s)
	}
	for _, r := range s {
		if r > 0x7e || (r < 0x20 && r != ' ' && r != '\t') {
			return nil, fmt.Errorf("%w: %q contains the character %q; kernel parameters are plain ASCII", ErrParams, s, r)
		}
	}
	c := ParseCmdline(s)
	if c.InitArgs != nil {
		return nil, fmt.Errorf("%w: %q contains \"--\"; sectax sets kernel parameters only, not init arguments", ErrParams, s)
	}
	for _, p := range c.Params {
		if p.Name == "" || strings.HasPrefix(p.Raw, "=") {
			return nil, fmt.Errorf("%w: %q has no parameter name; write NAME or NAME=VALUE", ErrParams, p.Raw)
		}
	}
	return c.Params, nil
}

// Format joins parameters into a command-line string.
func Format(params []Param) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.String()
	}
	return strings.Join(parts, " ")
}

// groups maps parameter keys that set the same thing under two spellings
// to one group name, so that Merge replaces both ("nopti" and "pti=on").
var groups = map[string]string{
	"nopti":                       "pti",
	"nospectre_v2":                "spectre_v2",
	"nospec_store_bypass_disable": "spec_store_bypass_disable",
}

// group is the key under which Merge and Effective treat a parameter as
// "the same setting".
func group(p Param) string {
	k := p.Key()
	if g, ok := groups[k]; ok {
		return g
	}
	return k
}

// Merge applies extra on top of base: every parameter in extra replaces all
// earlier parameters of base that set the same thing (same key, with '-'
// and '_' equal, and the flag spellings nopti/pti=, nospectre_v2/spectre_v2=,
// nospec_store_bypass_disable/spec_store_bypass_disable= taken as one) and
// is appended at the end. The result is what a user-supplied string
// appended to a command line means, written without the dead earlier
// copies. Neither input is modified.
func Merge(base, extra []Param) []Param {
	out := make([]Param, 0, len(base)+len(extra))
	drop := map[string]bool{}
	for _, p := range extra {
		drop[group(p)] = true
	}
	for _, p := range base {
		if !drop[group(p)] {
			out = append(out, p)
		}
	}
	// Within extra, too, only the last copy of a setting is kept.
	last := map[string]int{}
	for i, p := range extra {
		last[group(p)] = i
	}
	for i, p := range extra {
		if last[group(p)] == i {
			out = append(out, p)
		}
	}
	return out
}

// Remove returns params without any parameter whose key (or group) is one
// of names, for "unset".
func Remove(params []Param, names ...string) []Param {
	drop := map[string]bool{}
	for _, n := range names {
		p := Param{Name: n}
		drop[group(p)] = true
	}
	var out []Param
	for _, p := range params {
		if !drop[group(p)] {
			out = append(out, p)
		}
	}
	return out
}

// Effective returns, for every setting in params, the copy that counts:
// the last one (the kernel's early_param handlers overwrite their variable,
// so the last value wins), in the order those last copies appear.
func Effective(params []Param) []Param {
	last := map[string]int{}
	for i, p := range params {
		last[group(p)] = i
	}
	var out []Param
	for i, p := range params {
		if last[group(p)] == i {
			out = append(out, p)
		}
	}
	return out
}

// Lookup returns the effective (last) parameter with the given name, with
// '-' and '_' equal, and whether there is one.
func Lookup(params []Param, name string) (Param, bool) {
	key := Param{Name: name}.Key()
	for i := len(params) - 1; i >= 0; i-- {
		if params[i].Key() == key {
			return params[i], true
		}
	}
	return Param{}, false
}
