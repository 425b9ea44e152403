package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/wslconfig"
)

// WSLConfigJSON is the JSON of 'sectax wslconfig show'.
func WSLConfigJSON(w io.Writer, s *wslconfig.Shown) error { return WriteJSON(w, s) }

// WSLConfigText is the text of 'sectax wslconfig show': the file, how it
// was found, the kernelCommandLine WSL uses, the warnings and the lines
// that make edits refuse the file.
func WSLConfigText(w io.Writer, s *wslconfig.Shown) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "file:     %s\nfound by: %s\n", s.Path, s.Source)
	switch {
	case !s.Exists:
		fmt.Fprintf(ew, "the file does not exist: WSL uses its defaults, and kernelCommandLine is not set\n")
	case s.Kernel != nil:
		fmt.Fprintf(ew, "format:   %s, %s line endings\n", s.Encoding, s.LineEndings)
		fmt.Fprintf(ew, "kernelCommandLine = %s\n", s.Kernel.Value)
		fmt.Fprintf(ew, "  from line %d, in [%s]; WSL appends it to its own kernel parameters, so it wins over them\n", s.Kernel.Line, s.Kernel.Section)
		if len(s.Kernel.Params) > 0 {
			fmt.Fprintf(ew, "  parameters: %s\n", strings.Join(s.Kernel.Params, ", "))
		}
	default:
		fmt.Fprintf(ew, "format:   %s, %s line endings\n", s.Encoding, s.LineEndings)
		fmt.Fprintf(ew, "kernelCommandLine is not set in [wsl2]: the kernel runs with its defaults (mitigations=auto)\n")
	}
	for _, d := range s.Warnings {
		fmt.Fprintf(ew, "warning: line %d: %s\n", d.Line, d.Msg)
	}
	for _, d := range s.Errors {
		fmt.Fprintf(ew, "error: line %d: %s (set and unset refuse this file until the line is fixed)\n", d.Line, d.Msg)
	}
	return ew.err
}
