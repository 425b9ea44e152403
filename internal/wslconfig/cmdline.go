package wslconfig

import (
	"fmt"
	"strings"
)

// isKernelSpace is the kernel's isspace() as next_arg() in lib/cmdline.c
// uses it to split the command line.
func isKernelSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// SplitParams splits a kernel command line into parameters the way the
// kernel's next_arg() does: at blanks outside double quotes, where a quote
// toggles anywhere in a parameter. The parameters are returned as written,
// quotes included.
func SplitParams(s string) []string {
	var out []string
	i := 0
	for {
		for i < len(s) && isKernelSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return out
		}
		start, inQuote := i, false
		for ; i < len(s); i++ {
			if isKernelSpace(s[i]) && !inQuote {
				break
			}
			if s[i] == '"' {
				inQuote = !inQuote
			}
		}
		out = append(out, s[start:i])
	}
}

// ParamKey is the name of a kernel parameter: the part before the first
// '=', without quotes, with '-' read as '_' (the kernel's parameq() treats
// them alike).
func ParamKey(p string) string {
	p = strings.ReplaceAll(p, `"`, "")
	if i := strings.IndexByte(p, '='); i >= 0 {
		p = p[:i]
	}
	return strings.ReplaceAll(p, "-", "_")
}

// CheckParams refuses parameters that would not reach the kernel as the
// user typed them: blanks (the kernel splits there), quotes (the kernel
// and WSL both remove them), non-ASCII or control characters (WSL keeps
// only narrow characters), an empty name, "--" (everything after it goes
// to init) and the same parameter twice.
func CheckParams(params []string) error {
	if len(params) == 0 {
		return fmt.Errorf("no kernel parameters given (for example: mitigations=off)")
	}
	seen := map[string]string{}
	for _, p := range params {
		switch {
		case p == "":
			return fmt.Errorf("an empty kernel parameter was given")
		case strings.ContainsAny(p, " \t\n\v\f\r"):
			return fmt.Errorf("kernel parameter %q contains a blank: the kernel splits its command line at blanks, so give each parameter as its own argument (mitigations=off nosmt); a value with blanks inside quotes is not supported here, edit the file by hand", p)
		case strings.Contains(p, `"`):
			return fmt.Errorf("kernel parameter %q contains a double quote: the kernel removes quotes and groups blanks inside them, and WSL removes unescaped quotes, so it would not arrive as written; give it without quotes", p)
		case p == "--":
			return fmt.Errorf(`"--" is not a kernel parameter: everything after it on the command line goes to init`)
		case strings.HasPrefix(p, "="):
			return fmt.Errorf("kernel parameter %q has no name before '='", p)
		}
		for _, c := range []byte(p) {
			if c < 0x21 || c > 0x7E {
				return fmt.Errorf("kernel parameter %q contains a non-ASCII or control character: WSL passes only ASCII reliably", p)
			}
		}
		k := ParamKey(p)
		if prev, ok := seen[k]; ok {
			return fmt.Errorf("kernel parameter %s is given twice (%s and %s); give it once", k, prev, p)
		}
		seen[k] = p
	}
	return nil
}

// initSplit returns where the kernel's own parameters end: at the first
// "--", after which the parameters belong to init.
func initSplit(toks []string) int {
	for i, t := range toks {
		if t == "--" {
			return i
		}
	}
	return len(toks)
}

// Change is one parameter edit.
type Change struct {
	// Old is the parameter that was there ("" when added).
	Old string `json:"old,omitempty"`
	// New is the parameter now there ("" when removed).
	New string `json:"new,omitempty"`
}

// mergeParams sets params in toks: a parameter with the same name is
// replaced in place (later ones with that name are dropped, so only one is
// left), a new one is added after the kernel's parameters (before "--").
func mergeParams(toks, params []string) ([]string, []Change) {
	end := initSplit(toks)
	kern := append([]string(nil), toks[:end]...)
	rest := toks[end:]
	var changes []Change
	for _, p := range params {
		k := ParamKey(p)
		found := false
		var out []string
		for _, t := range kern {
			if ParamKey(t) != k {
				out = append(out, t)
				continue
			}
			if !found {
				found = true
				out = append(out, p)
				if t != p {
					changes = append(changes, Change{Old: t, New: p})
				}
				continue
			}
			changes = append(changes, Change{Old: t})
		}
		if !found {
			out = append(out, p)
			changes = append(changes, Change{New: p})
		}
		kern = out
	}
	return append(kern, rest...), changes
}

// removeParams drops from toks (before "--") every parameter named in
// params: "name" removes it with any value, "name=value" only with that
// value. It also returns the params that matched nothing.
func removeParams(toks, params []string) (out []string, changes []Change, absent []string) {
	end := initSplit(toks)
	hit := make([]bool, len(params))
	for i, t := range toks {
		drop := false
		if i < end {
			for j, p := range params {
				if ParamKey(t) != ParamKey(p) {
					continue
				}
				if strings.Contains(p, "=") && valueOf(t) != valueOf(p) {
					continue
				}
				drop, hit[j] = true, true
			}
		}
		if drop {
			changes = append(changes, Change{Old: t})
		} else {
			out = append(out, t)
		}
	}
	for j, p := range params {
		if !hit[j] {
			absent = append(absent, p)
		}
	}
	return out, changes, absent
}

func valueOf(p string) string {
	if i := strings.IndexByte(p, '='); i >= 0 {
		return p[i+1:]
	}
	return ""
}
