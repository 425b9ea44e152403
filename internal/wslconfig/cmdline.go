package wslconfig

import (
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
)

// The kernel command line itself (splitting it, merging parameters in,
// removing them, listing the changes) belongs to internal/mitigation, the
// same code advise previews an edit with; this file keeps only what is
// particular to writing parameters into .wslconfig.

// Change is one parameter edit (mitigation.Change: Old replaced by New,
// Old removed, or New added).
type Change = mitigation.Change

// CheckParams refuses parameters that would not reach the kernel as the
// user typed them: blanks (the kernel splits there), quotes (the kernel
// and WSL both remove them), non-ASCII or control characters (WSL keeps
// only narrow characters), an empty name, "--" (everything after it goes
// to init) and the same setting twice (mitigation.SameSetting: also
// nopti next to pti=on), except mitigations=, whose every copy the kernel
// reads in turn (mitigation.Repeats).
func CheckParams(params []string) error {
	if len(params) == 0 {
		return fmt.Errorf("no kernel parameters given (for example: mitigations=off)")
	}
	var seen []mitigation.Param
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
		q := param(p)
		for _, s := range seen {
			if mitigation.SameSetting(s, q) && !mitigation.Repeats(q) {
				return fmt.Errorf("kernel parameter %s is given twice (%s and %s); give it once", q.Key(), s.Raw, p)
			}
		}
		seen = append(seen, q)
	}
	return nil
}

// param parses one parameter CheckParams accepted.
func param(p string) mitigation.Param {
	return mitigation.ParseCmdline(p).Params[0]
}

// params parses the parameters CheckParams accepted.
func params(ps []string) []mitigation.Param {
	out := make([]mitigation.Param, len(ps))
	for i, p := range ps {
		out[i] = param(p)
	}
	return out
}
