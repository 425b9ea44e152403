package mitigation

import (
	"errors"
	"fmt"
	"slices"
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
	// InitArgs are the words after a lone "--", as written (the kernel
	// splits them with the same next_arg() and passes them to init without
	// interpreting them). It is nil when there is no "--" and non-nil
	// (possibly empty) when there is one.
	InitArgs []string
}

// Words returns the command line's words as written: the parameters' Raw
// text, then "--" and the init arguments when there is a "--".
func (c Cmdline) Words() []string {
	out := make([]string, 0, len(c.Params)+len(c.InitArgs)+1)
	for _, p := range c.Params {
		out = append(out, p.raw())
	}
	if c.InitArgs != nil {
		out = append(append(out, "--"), c.InitArgs...)
	}
	return out
}

// String joins the words with single blanks: the command line with its
// spacing normalised and every word as written.
func (c Cmdline) String() string { return strings.Join(c.Words(), " ") }

// Tokens splits a command line into its words as written, the way the
// kernel's next_arg() splits it: at blanks outside double quotes, quotes
// kept; "--" and the init arguments after it included. It is
// ParseCmdline(raw).Words().
func Tokens(raw string) []string { return ParseCmdline(raw).Words() }

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
			c.InitArgs = []string{}
			for {
				rest = strings.TrimLeft(rest, " \t\n\v\f\r\x00")
				if rest == "" {
					return c
				}
				a, more := nextArg(rest)
				c.InitArgs = append(c.InitArgs, a.Raw)
				rest = more
			}
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
			p.Value = strings.TrimSuffix(p.Value, `"`)
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

// raw is the parameter as written, or as String renders it when it was
// not parsed from text.
func (p Param) raw() string {
	if p.Raw != "" {
		return p.Raw
	}
	return p.String()
}

// Format joins parameters into a command-line string, each as written.
func Format(params []Param) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.raw()
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

// Repeats reports whether every copy of p counts, not only the last:
// kernel/cpu.c's mitigations_parse_cmdline runs once per mitigations=
// token on the state the earlier ones left (FoldGlobal: from 6.17 a
// vector one token clears stays cleared, and before 6.17 a token the
// handler does not accept leaves the earlier one in force), so
// "mitigations=off mitigations=auto" is not "mitigations=auto".
func Repeats(p Param) bool { return p.Key() == "mitigations" && p.HasValue }

// SameSetting reports whether a and b set the same thing, so that Merge
// lets one replace the other: the same key ('-' and '_' equal), or the
// flag and value spellings nopti/pti=, nospectre_v2/spectre_v2=,
// nospec_store_bypass_disable/spec_store_bypass_disable=.
func SameSetting(a, b Param) bool { return group(a) == group(b) }

// Merge applies extra on top of base; it is the one merge every command
// that edits a command line uses (advise's preview, wslconfig set, the
// predicted command line). A parameter of extra replaces, in place, the
// first parameter of base that sets the same thing (SameSetting), and the
// later ones are dropped; a parameter that sets something new is added at
// the end. Within extra the last copy of a setting wins. The result means
// what appending extra to base would mean to the kernel (its last value
// wins), written without the dead copies and in the user's order. Neither
// input is modified.
func Merge(base, extra []Param) []Param {
	fresh := Effective(extra)
	set := map[string][]Param{}
	for _, p := range fresh {
		set[group(p)] = append(set[group(p)], p)
	}
	out := make([]Param, 0, len(base)+len(extra))
	placed := map[string]bool{}
	for _, p := range base {
		g := group(p)
		np, ok := set[g]
		switch {
		case !ok:
			out = append(out, p)
		case !placed[g]:
			out = append(out, np...)
			placed[g] = true
		}
	}
	for _, p := range fresh {
		if !placed[group(p)] {
			out = append(out, p)
		}
	}
	return out
}

// Remove drops from params every parameter that one of specs names: a
// spec without a value ("mitigations") removes the parameter with any
// value, a spec with one ("mitigations=off") only with that value; names
// compare with '-' and '_' equal, but not across spellings (unset nopti
// leaves pti=off). It also returns the specs that matched nothing.
func Remove(params, specs []Param) (out, absent []Param) {
	hit := make([]bool, len(specs))
	for _, p := range params {
		drop := false
		for j, s := range specs {
			if p.Key() == s.Key() && (!s.HasValue || p.HasValue && p.Value == s.Value) {
				drop, hit[j] = true, true
			}
		}
		if !drop {
			out = append(out, p)
		}
	}
	for j, s := range specs {
		if !hit[j] {
			absent = append(absent, s)
		}
	}
	return out, absent
}

// Change is one edit of a parameter list.
type Change struct {
	// Op is add, replace or remove.
	Op  string `json:"op"`
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// Diff lists the edits from base to after by the parameters as written: a
// removed and an added parameter that set the same thing make a replace.
// Replacements and removals come in base's order, additions after them in
// after's order.
func Diff(base, after []Param) []Change {
	count := func(ps []Param) map[string]int {
		m := map[string]int{}
		for _, p := range ps {
			m[p.raw()]++
		}
		return m
	}
	inBase, inAfter := count(base), count(after)
	var removed, added []Param
	for _, p := range base {
		if inAfter[p.raw()] > 0 {
			inAfter[p.raw()]--
			continue
		}
		removed = append(removed, p)
	}
	for _, p := range after {
		if inBase[p.raw()] > 0 {
			inBase[p.raw()]--
			continue
		}
		added = append(added, p)
	}
	out := []Change{}
	used := map[int]bool{}
	for _, r := range removed {
		replaced := false
		for i, ad := range added {
			if !used[i] && SameSetting(r, ad) {
				out = append(out, Change{Op: "replace", Old: r.raw(), New: ad.raw()})
				used[i], replaced = true, true
				break
			}
		}
		if !replaced {
			out = append(out, Change{Op: "remove", Old: r.raw()})
		}
	}
	for i, ad := range added {
		if !used[i] {
			out = append(out, Change{Op: "add", New: ad.raw()})
		}
	}
	return out
}

// Effective returns, for every setting in params, the copies that count:
// the last one (the kernel's early_param handlers overwrite their variable,
// so the last value wins), in the order those last copies appear; every
// mitigations= with a value, which the kernel reads in turn (Repeats).
func Effective(params []Param) []Param {
	last := map[string]int{}
	for i, p := range params {
		last[group(p)] = i
	}
	var out []Param
	for i, p := range params {
		if last[group(p)] == i || Repeats(p) {
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

// GlobalSwitch is what kernel/cpu.c's mitigations_parse_cmdline() leaves
// after reading every mitigations= of a command line in order: each token
// runs the handler again on the state the earlier ones left.
type GlobalSwitch struct {
	// Off is cpu_mitigations_off(): the last global option the kernel
	// accepted was off.
	Off bool
	// NoSMT is cpu_mitigations_auto_nosmt().
	NoSMT bool
	// VectorsOff are the attack vectors left off, in Vectors' order;
	// cross_thread when smt_mitigations is off. From 6.17 an off clears
	// every vector and no later token sets one again (the handler only
	// ever clears attack_vectors[]), while a later auto,nosmt turns
	// smt_mitigations on again.
	VectorsOff []string
	// Stopped are the parts the kernel rejected: a whole token it did not
	// accept, or the item of a list where it stopped reading ("Unsupported
	// mitigations options bogus"; the items before it took effect, those
	// after it did not).
	Stopped []string
	// By is the mitigations= tokens as written, in order.
	By string
}

// FoldGlobal reads the values of every mitigations= of a command line in
// order, as the kernel's mitigations_parse_cmdline() does.
//
// Before 6.17 (prefix false) the handler compares the whole value with
// off, auto and auto,nosmt (strcmp) and leaves the state alone for
// anything else; the last accepted value wins. From 6.17 (prefix true) it
// matches the global option as a prefix (strncmp: "offx" is off, and the
// rest "x" is then unsupported), clears every attack vector and
// smt_mitigations whenever cpu_mitigations_off() holds after it, and reads
// the ",no_<vector>" items with strsep, stopping at the first it does not
// know (or at once where the architecture has no attack-vector controls,
// vectors false: CONFIG_ARCH_HAS_CPU_ATTACK_VECTORS is x86 only).
// Source: kernel/cpu.c mitigations_parse_global_opt and
// mitigations_parse_cmdline (v6.17, v6.18; v6.16 and before for prefix
// false).
func FoldGlobal(values []string, prefix, vectors bool) GlobalSwitch {
	const (
		auto = iota
		off
		nosmt
	)
	state := auto
	cleared := map[string]bool{}
	smtOff := false
	var gs GlobalSwitch
	var by []string
	for _, v := range values {
		by = append(by, "mitigations="+v)
		if !prefix {
			switch v {
			case "off":
				state = off
			case "auto":
				state = auto
			case "auto,nosmt":
				state = nosmt
			default:
				gs.Stopped = append(gs.Stopped, v)
			}
			continue
		}
		rest := v
		switch {
		case strings.HasPrefix(v, "auto,nosmt"):
			state, rest = nosmt, v[len("auto,nosmt"):]
		case strings.HasPrefix(v, "auto"):
			state, rest = auto, v[len("auto"):]
		case strings.HasPrefix(v, "off"):
			state, rest = off, v[len("off"):]
		}
		switch state {
		case off:
			for _, vec := range Vectors {
				cleared[vec] = true
			}
			smtOff = true
		case nosmt:
			smtOff = false
		}
		if rest == "" {
			continue
		}
		if rest[0] != ',' || !vectors {
			gs.Stopped = append(gs.Stopped, rest)
			continue
		}
		for _, item := range strings.Split(rest[1:], ",") {
			vec, ok := strings.CutPrefix(item, "no_")
			if !ok || !slices.Contains(Vectors, vec) {
				gs.Stopped = append(gs.Stopped, item)
				break
			}
			if vec == "cross_thread" {
				smtOff = true
				continue
			}
			cleared[vec] = true
		}
	}
	gs.Off, gs.NoSMT = state == off, state == nosmt
	if prefix {
		for _, vec := range Vectors {
			if vec == "cross_thread" && smtOff || vec != "cross_thread" && cleared[vec] {
				gs.VectorsOff = append(gs.VectorsOff, vec)
			}
		}
	}
	gs.By = strings.Join(by, " ")
	return gs
}
