package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/attribute"
)

// PlanText renders an attribution plan: the active mitigations with the
// parameter that turns each off, then every configuration with the files
// it is expected to change and why a parameter will have no effect.
func PlanText(w io.Writer, p *attribute.Design) error {
	return plainText(w, func(w io.Writer) error { return planText(w, p) })
}

func planText(w io.Writer, p *attribute.Design) error {
	// The release, the command line and the vulnerability files are one
	// line each in the kernel's format, and stay one here (termSafe).
	// The command line, to copy, whole on a line of its own when long.
	if line := "command line: " + termSafe(p.Cmdline); utf8.RuneCountInString(line) <= widthOf(w) {
		fmt.Fprintf(w, "attribution plan for kernel %s\n%s\n\n", termSafe(p.Kernel), line)
	} else {
		fmt.Fprintf(w, "attribution plan for kernel %s\ncommand line:\n  %s\n\n", termSafe(p.Kernel), termSafe(p.Cmdline))
	}
	if len(p.Active) == 0 {
		fmt.Fprintln(w, "no active mitigation that a parameter turns off")
	} else {
		fmt.Fprintln(w, "active mitigations, most expensive first:")
		t := &table{}
		t.add(cell{text: "  file"}, cell{text: "mode"}, cell{text: "cost"}, cell{text: "off alone with"}, cell{text: "configuration"})
		for _, a := range p.Active {
			t.add(cell{text: "  " + a.File}, cell{text: orDash(a.Mode)}, cell{text: orDash(a.Cost)}, cell{text: planOr(a.Param, "mitigations=off only")}, cell{text: orDash(a.Config)})
		}
		if err := t.write(w, false); err != nil {
			return err
		}
		for _, a := range p.Active {
			if a.Note != "" {
				writeForeign(w, termSafe(a.Note), a.Note, "  note: ", "    ")
			}
		}
	}
	// Two tables, each within TextWidth: what each configuration is
	// expected to turn off, then the parameters it adds (wrapped at their
	// spaces under their column).
	fmt.Fprintln(w, "\nconfigurations:")
	rows := [][]string{{"  name", "kind", "expected to turn off"}}
	adds := [][]string{{"  name", "adds to the command line"}}
	rawWhat, rawAdds := lastCells(rows), lastCells(adds) // what termSafe made each last cell from
	for _, c := range p.Configurations {
		exp := make([]string, 0, len(c.Expected))
		for _, e := range c.Expected {
			exp = append(exp, e.File)
		}
		what := strings.Join(exp, ", ")
		switch {
		case c.SameAs != "":
			what = "same as " + c.SameAs + " (one boot serves both)"
		case len(c.Params) == 0:
			what = "nothing (the default command line)"
		case what == "":
			what = "nothing"
		}
		if !c.Boot && c.SameAs == "" {
			what += " (no boot needed)"
		}
		rows = append(rows, []string{"  " + c.Name, c.Kind, termSafe(what)})
		adds = append(adds, []string{"  " + c.Name, termSafe(orDash(c.String()))})
		rawWhat, rawAdds = append(rawWhat, what), append(rawAdds, orDash(c.String()))
	}
	writeTableWrapped(w, rows, rawWhat)
	fmt.Fprintln(w, "\nwhat each configuration adds to the command line:")
	writeTableWrapped(w, adds, rawAdds)
	for _, c := range p.Configurations {
		if c.SameAs != "" {
			continue
		}
		for _, x := range c.Weakened {
			l := fmt.Sprintf("%s: %s stays mitigated with a part off (%s)", c.Name, x.File, x.By)
			writeForeign(w, termSafe(l), l, "  ", "    ")
		}
		for _, x := range c.NoEffect {
			l := c.Name + ": " + x
			writeQuoting(w, termSafe(l), l, "  ", "    ")
		}
		if len(c.Toggles) > 0 {
			writeWrapped(w, c.Name+": not CPU mitigations: "+termSafe(strings.Join(c.Toggles, " ")), "  ", "    ")
		}
	}
	if len(p.Cumulative) > 0 {
		fmt.Fprintln(w)
		writeWrapped(w, strings.Join(p.Cumulative, " → "), "cumulative order: ", "  ")
	}
	for _, n := range p.Notes {
		writeForeign(w, termSafe(n), n, "note: ", "  ")
	}
	return nil
}

// PlanJSON writes the sectax.attribute-plan/v1 document.
func PlanJSON(w io.Writer, p *attribute.Design) error {
	return WriteJSON(w, p)
}

func planOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
