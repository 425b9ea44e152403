package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sectax/sectax/internal/wslconfig"
)

// WSLConfigJSON is the JSON of 'sectax wslconfig show'.
func WSLConfigJSON(w io.Writer, s *wslconfig.Shown) error { return WriteJSON(w, s) }

// WSLConfigText is the text of 'sectax wslconfig show': the file, how it
// was found, the kernelCommandLine WSL uses, the warnings and the lines
// that make edits refuse the file.
func WSLConfigText(w io.Writer, s *wslconfig.Shown) error {
	return plainText(w, func(w io.Writer) error { return wSLConfigText(w, s) })
}

func wSLConfigText(w io.Writer, s *wslconfig.Shown) error {
	ew := &errWriter{w: w}
	// The file's path and its kernel command line stay whole, on a line of
	// their own when they do not fit after their name (writeLabelled).
	fmt.Fprintf(ew, "file:     %s\n", s.Path) // a path to copy: whole
	writeForeign(ew, termSafe(s.Source), s.Source, "found by: ", "  ")
	switch {
	case !s.Exists:
		writeWrapped(ew, "the file does not exist: WSL uses its defaults, and kernelCommandLine is not set", "", "  ")
	case s.Kernel != nil:
		fmt.Fprintf(ew, "format:   %s, %s line endings\n", s.Encoding, s.LineEndings)
		writeLabelled(ew, "kernelCommandLine =", termSafe(s.Kernel.Value), "  ")
		l := fmt.Sprintf("from line %d, in [%s]; WSL appends it to its own kernel parameters, so it wins over them", s.Kernel.Line, s.Kernel.Section)
		writeForeign(ew, termSafe(l), l, "  ", "    ")
		if len(s.Kernel.Params) > 0 {
			l := strings.Join(s.Kernel.Params, ", ")
			writeForeign(ew, termSafe(l), l, "  parameters: ", "    ")
		}
	default:
		fmt.Fprintf(ew, "format:   %s, %s line endings\n", s.Encoding, s.LineEndings)
		writeWrapped(ew, "kernelCommandLine is not set in [wsl2]: the kernel runs with its defaults (mitigations=auto)", "", "  ")
	}
	for _, d := range s.Warnings {
		l := fmt.Sprintf("warning: line %d: %s", d.Line, d.Msg)
		writeForeign(ew, termSafe(l), l, "", "  ")
	}
	for _, d := range s.Errors {
		l := fmt.Sprintf("error: line %d: %s (set and unset refuse this file until the line is fixed)", d.Line, d.Msg)
		writeForeign(ew, termSafe(l), l, "", "  ")
	}
	return ew.err
}

// WSLEditText is the text of 'sectax wslconfig set' and 'unset': nothing to
// change, the dry run's diff, or what was written with its backup; next
// adds the steps that bring the change into force (-q leaves them out).
func WSLEditText(w io.Writer, e *wslconfig.Edited, next bool) error {
	ew := &errWriter{w: w}
	res := e.Result
	// say writes a sentence that may quote the file's path or a value,
	// wrapped to the width (writeForeign).
	say := func(s string) { writeForeign(ew, termSafe(s), s, "", "  ") }
	switch {
	case !res.Changed && e.Verb == "set":
		say(fmt.Sprintf("%s: kernelCommandLine (line %d) already has %s; nothing to change", filepath.Base(e.Path), res.Line, strings.Join(e.Params, " ")))
		fmt.Fprintf(ew, "  file: %s\n", e.Path)
		return ew.err
	case !res.Changed:
		say(fmt.Sprintf("%s: kernelCommandLine has none of %s; nothing to change", filepath.Base(e.Path), strings.Join(res.Absent, " ")))
		fmt.Fprintf(ew, "  file: %s\n", e.Path)
		return ew.err
	case e.DryRun:
		fmt.Fprintf(ew, "%s\n%s", DryRunLine, e.Diff)
		return ew.err
	}
	// The file by its name, then its path (and the link's) whole on a line
	// of its own: where a sentence breaks does not depend on a path.
	where := filepath.Base(e.Written)
	switch {
	case res.Removed:
		say(fmt.Sprintf("updated %s: removed the kernelCommandLine line, nothing was left in it", where))
	case res.Created == "section":
		say(fmt.Sprintf("updated %s: added a [wsl2] section with kernelCommandLine (line %d)", where, res.Line))
	case res.Created == "key":
		say(fmt.Sprintf("updated %s: added kernelCommandLine to [wsl2] (line %d)", where, res.Line))
	default:
		say(fmt.Sprintf("updated %s: kernelCommandLine on line %d", where, res.Line))
	}
	fmt.Fprintf(ew, "  file: %s\n", e.Written)
	if e.Written != e.Path {
		fmt.Fprintf(ew, "  link: %s\n", e.Path) // the link that names it
	}
	for _, c := range res.Changes {
		switch {
		case c.Old == "":
			fmt.Fprintf(ew, "  + %s\n", c.New)
		case c.New == "":
			fmt.Fprintf(ew, "  - %s\n", c.Old)
		default:
			fmt.Fprintf(ew, "  %s -> %s\n", c.Old, c.New)
		}
	}
	switch {
	case !res.Removed && res.New == "":
		say("kernelCommandLine is now empty; the line stays because deleting it would bring the later kernelCommandLine (which WSL now ignores) into force")
	case !res.Removed:
		writeLabelled(ew, "kernelCommandLine =", res.New, "  ")
	}
	if len(res.Absent) > 0 {
		say("not there (nothing to remove): " + strings.Join(res.Absent, " "))
	}
	if e.Backup != "" {
		fmt.Fprintf(ew, "backup: %s\n", e.Backup) // a path to copy: whole
	} else {
		fmt.Fprintf(ew, "backup: none (the file is new)\n")
	}
	if next {
		writeWrapped(ew, "next: WSL reads .wslconfig only when its VM starts. In Windows PowerShell or cmd (not in this shell) run:", "", "")
		fmt.Fprintln(ew, "    wsl --shutdown")
		writeWrapped(ew, "then open the distro again and check that the kernel got the parameters:", "", "")
		fmt.Fprintf(ew, "    sectax verify --expect %s\n", e.Expect)
	}
	return ew.err
}
