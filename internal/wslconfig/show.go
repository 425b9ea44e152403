package wslconfig

import "github.com/sectax/sectax/internal/mitigation"

// Shown is what 'sectax wslconfig show' says of a .wslconfig: where it is,
// how it is written, the kernelCommandLine WSL uses, and its diagnostics
// (report lays it out as text and JSON).
type Shown struct {
	Path        string `json:"path"`
	Source      string `json:"source"`
	Exists      bool   `json:"exists"`
	Encoding    string `json:"encoding,omitempty"`
	LineEndings string `json:"line_endings,omitempty"`
	// Kernel is the kernelCommandLine entry (nil: not set).
	Kernel   *ShownKernel `json:"kernel_command_line"`
	Warnings []Diagnostic `json:"warnings"`
	// Errors are the lines that make set and unset refuse the file.
	Errors []Diagnostic `json:"errors"`
}

// ShownKernel is the kernelCommandLine entry and its parameters.
type ShownKernel struct {
	Line    int      `json:"line"`
	Section string   `json:"section"`
	Value   string   `json:"value"`
	Raw     string   `json:"raw"`
	Params  []string `json:"params"`
}

// Show is what the file f found at loc says (exists: the file is there;
// a missing file parses as an empty one).
func Show(loc Location, exists bool, f *File) *Shown {
	s := &Shown{Path: loc.Path, Source: loc.Source, Exists: exists,
		Warnings: append([]Diagnostic{}, f.Warnings()...), Errors: Refusals(f)}
	if exists {
		s.Encoding, s.LineEndings = f.Encoding().String(), f.LineEndings()
	}
	if e, ok := f.KernelCommandLine(); ok {
		s.Kernel = &ShownKernel{Line: e.Line, Section: e.Section, Value: e.Value, Raw: e.Raw,
			Params: append([]string{}, mitigation.Tokens(e.Value)...)}
	}
	return s
}

// Refusals are the diagnostics that make edits refuse the file.
func Refusals(f *File) []Diagnostic {
	out := []Diagnostic{}
	for _, d := range f.Diagnostics() {
		if d.Refuse {
			out = append(out, d)
		}
	}
	return out
}
