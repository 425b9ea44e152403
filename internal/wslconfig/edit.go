package wslconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
)

// Section and key of the setting sectax edits.
const (
	KernelSection = "wsl2"
	KernelKey     = "kernelCommandLine"
)

// ParamError is an error in the kernel parameters the user gave (a usage
// error), as opposed to a problem with the file.
type ParamError struct{ Err error }

// Error is the message of the wrapped error.
func (e *ParamError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ParamError) Unwrap() error { return e.Err }

// KernelCommandLine is the kernelCommandLine entry WSL uses: the first one
// in a [wsl2] section. ok is false when there is none.
func (f *File) KernelCommandLine() (e Entry, ok bool) {
	for _, e := range f.entries {
		if isKernelEntry(e) {
			return e, true
		}
	}
	return Entry{}, false
}

func isKernelEntry(e Entry) bool { return e.Is(KernelSection, KernelKey) }

// Warnings are the remarks about the file as data: the lines WSL skips,
// a kernelCommandLine that WSL ignores because an earlier one wins, and
// one outside [wsl2].
func (f *File) Warnings() []Diagnostic {
	var out []Diagnostic
	for _, d := range f.diags {
		if !d.Refuse {
			out = append(out, d)
		}
	}
	first, ok := f.KernelCommandLine()
	for _, e := range f.entries {
		switch {
		case isKernelEntry(e) && e.Shadowed && ok:
			out = append(out, Diagnostic{Line: e.Line, Msg: fmt.Sprintf(
				"a second kernelCommandLine, which WSL ignores (the first, on line %d, wins); move what you need into line %d and delete this one", first.Line, first.Line)})
		case foldEq(e.Key, KernelKey) && !isKernelEntry(e):
			where := "before any section"
			if e.Section != "" {
				where = "in [" + e.Section + "]"
			}
			out = append(out, Diagnostic{Line: e.Line, Msg: fmt.Sprintf(
				"kernelCommandLine %s is not read by WSL; it belongs in [wsl2]", where)})
		}
	}
	slices.SortStableFunc(out, func(a, b Diagnostic) int { return a.Line - b.Line })
	return out
}

// refusal is the first problem that makes sectax refuse to edit the file.
func (f *File) refusal() error {
	for _, d := range f.diags {
		if d.Refuse {
			return &LineError{d.Line, d.Msg + "; sectax edits only files WSL reads without such errors"}
		}
	}
	// A file with no section WSL reads and lines WSL skips is not a
	// .wslconfig (a shadow file, a script reached through --path LINK):
	// editing it would add a [wsl2] section to someone else's file.
	if len(f.sections) == 0 && len(f.diags) > 0 {
		return &LineError{f.diags[0].Line, "this is not a .wslconfig (no [section] WSL reads, and lines WSL skips); sectax edits only .wslconfig files: check --path"}
	}
	return nil
}

// Result describes an edit of kernelCommandLine.
type Result struct {
	// Changed is false when the file already said what was asked.
	Changed bool `json:"changed"`
	// Line is the line of kernelCommandLine after the edit (0 if removed
	// or absent).
	Line int `json:"line,omitempty"`
	// Old and New are the values WSL reads before and after ("" when the
	// key is absent).
	Old string `json:"old"`
	New string `json:"new"`
	// Changes are the parameters replaced, added and removed.
	Changes []Change `json:"changes,omitempty"`
	// Absent are the parameters Unset was asked to remove but did not find.
	Absent []string `json:"absent,omitempty"`
	// Created says what was added to the file: "key", "section" (section
	// and key), or "" for an edit of an existing line.
	Created string `json:"created,omitempty"`
	// Removed is true when the kernelCommandLine line was deleted because
	// no parameter was left.
	Removed bool `json:"removed,omitempty"`
}

// Set puts ps into kernelCommandLine of [wsl2] with mitigation.Merge, the
// merge advise previews the edit with: parameters already there are kept,
// one that sets the same thing is replaced in place (later copies of it
// dropped), new ones are added before any "--". It returns the edited
// file (f itself when nothing changes).
func (f *File) Set(ps []string) (*File, Result, error) {
	if err := CheckParams(ps); err != nil {
		return nil, Result{}, &ParamError{err}
	}
	if err := f.refusal(); err != nil {
		return nil, Result{}, err
	}
	extra := params(ps)
	e, ok := f.KernelCommandLine()
	if !ok {
		toks := mitigation.Cmdline{Params: mitigation.Merge(nil, extra)}.Words()
		text, created := f.insertKernelLine(toks)
		res := Result{Changed: true, New: strings.Join(toks, " "), Created: created,
			Changes: mitigation.Diff(nil, extra)}
		return f.finish(text, toks, res)
	}
	if err := checkASCII(e); err != nil {
		return nil, Result{}, err
	}
	c := mitigation.ParseCmdline(e.Value)
	after := mitigation.Cmdline{Params: mitigation.Merge(c.Params, extra), InitArgs: c.InitArgs}
	old, toks := c.Words(), after.Words()
	res := Result{Old: e.Value, New: e.Value, Line: e.Line}
	if slices.Equal(toks, old) {
		return f, res, nil
	}
	res.Changed, res.Changes, res.New = true, mitigation.Diff(c.Params, after.Params), after.String()
	return f.finish(f.replaceValue(e, toks), toks, res)
}

// Unset removes the named parameters from kernelCommandLine of [wsl2]: a
// bare name removes the parameter with any value, name=value only that
// value. The line is deleted when nothing is left.
func (f *File) Unset(ps []string) (*File, Result, error) {
	if err := CheckParams(ps); err != nil {
		return nil, Result{}, &ParamError{err}
	}
	if err := f.refusal(); err != nil {
		return nil, Result{}, err
	}
	e, ok := f.KernelCommandLine()
	if !ok {
		return f, Result{Absent: append([]string(nil), ps...)}, nil
	}
	if err := checkASCII(e); err != nil {
		return nil, Result{}, err
	}
	c := mitigation.ParseCmdline(e.Value)
	kept, absent := mitigation.Remove(c.Params, params(ps))
	after := mitigation.Cmdline{Params: kept, InitArgs: c.InitArgs}
	toks := after.Words()
	res := Result{Old: e.Value, New: e.Value, Line: e.Line}
	for _, a := range absent {
		res.Absent = append(res.Absent, a.Raw)
	}
	changes := mitigation.Diff(c.Params, kept)
	if len(changes) == 0 {
		return f, res, nil
	}
	res.Changed, res.Changes, res.New = true, changes, after.String()
	if len(toks) == 0 && !f.hasShadowedKernelLine() {
		res.Removed, res.Line = true, 0
		return f.finish(f.text[:e.lineStart]+f.text[e.lineEnd:], nil, res)
	}
	// With a later kernelCommandLine that WSL now ignores, deleting this
	// line would bring that one into force: leave this one, empty.
	if toks == nil {
		toks = []string{}
	}
	return f.finish(f.replaceValue(e, toks), toks, res)
}

func (f *File) hasShadowedKernelLine() bool {
	for _, e := range f.entries {
		if isKernelEntry(e) && e.Shadowed {
			return true
		}
	}
	return false
}

// checkASCII refuses to edit a kernelCommandLine that WSL or the kernel
// would not read as sectax does.
func checkASCII(e Entry) error {
	for _, c := range []byte(e.Value) {
		if c >= 0x80 {
			return &LineError{e.Line, "kernelCommandLine has non-ASCII characters, which WSL does not pass on intact; fix the line by hand"}
		}
	}
	for _, c := range []byte(e.Value) {
		if c < 0x20 && c != '\t' {
			return &LineError{e.Line, "kernelCommandLine has a control character, which would end or split the kernel's command line; fix the line by hand"}
		}
	}
	if strings.Count(e.Value, `"`)%2 != 0 {
		return &LineError{e.Line, "kernelCommandLine has an unpaired double quote (after WSL removed its own quotes), so the kernel would swallow every parameter after it; fix the line by hand"}
	}
	return nil
}

// replaceValue rewrites the raw value of e, keeping the key, the spacing,
// a trailing comment and the line ending.
func (f *File) replaceValue(e Entry, toks []string) string {
	quoted := len(e.Raw) >= 2 && e.Raw[0] == '"' && e.Raw[len(e.Raw)-1] == '"'
	v := encodeValue(toks, quoted)
	if e.valStart == e.valEnd && e.valStart > 0 && f.text[e.valStart-1] == '=' &&
		e.valStart >= 2 && isHSpace(rune(f.text[e.valStart-2])) {
		v = " " + v
	}
	return f.text[:e.valStart] + v + f.text[e.valEnd:]
}

// insertKernelLine adds "kernelCommandLine = …" to the first [wsl2]
// section (after its last setting, or after the header), or a new [wsl2]
// section at the end of the file.
func (f *File) insertKernelLine(toks []string) (text, created string) {
	eol := f.eol()
	line := KernelKey + " = " + encodeValue(toks, false) + eol
	at, atEOF := -1, false
	for i, e := range f.entries {
		if e.truncated || !foldEq(e.Section, KernelSection) {
			continue
		}
		at, atEOF = e.lineEnd, e.atEOF
		for _, n := range f.entries[i+1:] {
			if n.truncated || !foldEq(n.Section, KernelSection) {
				break
			}
			at, atEOF = n.lineEnd, n.atEOF
		}
		break
	}
	if at < 0 {
		for _, s := range f.sections {
			if foldEq(s.name, KernelSection) {
				at = s.lineEnd
				break
			}
		}
	}
	created = "key"
	if at < 0 {
		at, created = len(f.text), "section"
		line = "[" + KernelSection + "]" + eol + line
		if t := f.text; t != "" {
			if !endsWithEOL(t) {
				line = eol + line
				t += eol
			}
			if !strings.HasSuffix(strings.TrimRight(t, " \t"), eol+eol) && strings.TrimSpace(t) != "" {
				line = eol + line
			}
		}
	} else if atEOF || at == len(f.text) && f.text != "" && !endsWithEOL(f.text) {
		line = eol + line
	}
	return f.text[:at] + line + f.text[at:], created
}

// endsWithEOL: only LF surely ends a line for WSL; a lone CR does not end
// a comment (WSL's comment loop swallows the character after it).
func endsWithEOL(s string) bool { return strings.HasSuffix(s, "\n") }

// encodeValue writes parameters as a .wslconfig value that WSL reads back
// as the same text: backslashes and quotes escaped, in double quotes when
// the original was quoted or a '#' would start a comment.
func encodeValue(toks []string, quoted bool) string {
	v := strings.Join(toks, " ")
	if strings.Contains(v, "#") {
		quoted = true
	}
	var sb strings.Builder
	if quoted {
		sb.WriteByte('"')
	}
	for _, c := range []byte(v) {
		switch c {
		case '\\':
			sb.WriteString(`\\`)
		case '"':
			sb.WriteString(`\"`)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		default:
			sb.WriteByte(c)
		}
	}
	if quoted {
		sb.WriteByte('"')
	}
	return sb.String()
}

// finish parses the edited text and checks that WSL will read exactly the
// intended kernelCommandLine and every other setting as before; an edit
// that fails the check is never returned.
func (f *File) finish(text string, want []string, res Result) (*File, Result, error) {
	nf := parseText(f.enc, text)
	bad := func(why string) (*File, Result, error) {
		return nil, Result{}, fmt.Errorf("internal error: the edited file would %s; nothing was written (please report this with the file)", why)
	}
	if n := len(nf.Bytes()); n > MaxSize {
		return nil, Result{}, &SizeError{int64(n)}
	}
	if err := nf.refusal(); err != nil {
		return bad("not parse cleanly: " + err.Error())
	}
	e, ok := nf.KernelCommandLine()
	switch {
	case want == nil && ok:
		return bad("still have kernelCommandLine")
	case want != nil && (!ok || !slices.Equal(mitigation.Tokens(e.Value), want)):
		return bad("not give the kernel the intended parameters")
	}
	if !slices.EqualFunc(others(f.entries), others(nf.entries), sameSetting) {
		return bad("change another setting")
	}
	if ok {
		res.Line = e.Line
	}
	return nf, res, nil
}

// others are the entries except the kernelCommandLine WSL uses.
func others(es []Entry) []Entry {
	var out []Entry
	skipped := false
	for _, e := range es {
		if !skipped && isKernelEntry(e) {
			skipped = true
			continue
		}
		out = append(out, e)
	}
	return out
}

func sameSetting(a, b Entry) bool {
	return a.Section == b.Section && a.Key == b.Key && a.truncated == b.truncated &&
		a.Value == b.Value && a.Shadowed == b.Shadowed
}
