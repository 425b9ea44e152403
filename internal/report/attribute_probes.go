package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/attribute"
)

// ProbesText renders the tax of each per-task speculation control: one row
// per workload and control, with the change of the median when the control
// is on, its interval and p-value, then what the kernel offers.
func ProbesText(w io.Writer, rep *attribute.ProbeReport) error {
	return plainText(w, func(w io.Writer) error { return probesText(w, rep) })
}

func probesText(w io.Writer, rep *attribute.ProbeReport) error {
	head := strings.Join(append([]string{"per-task speculation controls, one boot"}, probesOf(rep, func(s string) string { return s })...), ", ")
	writeForeign(w, termSafe(head), head, "", "  ")
	fmt.Fprintln(w)
	// The controls, what the kernel offers each, and why one is not
	// available (prose, wrapped under its column).
	rows, raw := [][]string{{"control", "kernel", "available"}}, []string{"available"}
	for _, c := range rep.Controls {
		av := "yes"
		if !c.Available {
			av = "no: " + c.Reason
		}
		rows = append(rows, []string{c.Control, c.Kernel, av})
		raw = append(raw, av)
	}
	writeTableWrapped(w, rows, raw)
	fmt.Fprintln(w)
	if len(rep.Rows) == 0 {
		fmt.Fprintln(w, "nothing measured: this kernel offers no per-task control")
	} else {
		// A workload's title on a line of its own, a row per control;
		// too wide a table splits between the medians and the change.
		t := &table{starts: []int{1, 3}}
		t.add(cell{text: "workload / control"}, cell{text: "off", right: true}, cell{text: "on", right: true},
			cell{text: "change"}, cell{text: "95% interval"}, cell{text: "p adj", right: true})
		title := ""
		for _, r := range rep.Rows {
			if wt := strings.TrimSpace(r.Workload + " " + r.ParamsKey); wt != title {
				title = wt
				t.add(cell{text: wt})
			}
			t.add(cell{text: "  " + r.Control + "=" + r.State}, cell{text: Value(r.Off, r.Unit, false), right: true}, cell{text: Value(r.On, r.Unit, false), right: true},
				cell{text: delta(!r.Significant, r.ChangePct)}, cell{text: probeCI(r)}, cell{text: probeP(r.PAdjusted), right: true})
		}
		if err := t.write(w, false); err != nil {
			return err
		}
		fmt.Fprintln(w)
		writeWrapped(w, fmt.Sprintf("change: of the median when the control is on (~: not significant at alpha %v; p adj: Mann-Whitney U, Holm-corrected over every control's workloads together).", rep.Alpha), "", "  ")
		fmt.Fprintln(w, "verified in /proc before every timed window:")
		seen := map[string]bool{}
		for _, r := range rep.Rows {
			line := fmt.Sprintf("%s %s, %s=%s: %s", r.Workload, r.ParamsKey, r.Control, r.State, r.Verified)
			if !seen[line] {
				seen[line] = true
				writeWrapped(w, line, "  ", "    ")
			}
		}
	}
	for _, n := range rep.Notes {
		writeWrapped(w, n, "note: ", "  ")
	}
	for _, r := range rep.Rows {
		for _, x := range r.Warnings {
			writeWrapped(w, fmt.Sprintf("%s %s, %s: %s", r.Workload, r.ParamsKey, r.Control, x), "warning: ", "  ")
		}
	}
	return nil
}

// probesOf names the run and the kernel a probe report measured, leaving
// out what it does not know (a report from no stored run has no id).
func probesOf(rep *attribute.ProbeReport, escape func(string) string) []string {
	var of []string
	if rep.Run != "" {
		of = append(of, "run "+escape(rep.Run))
	}
	if rep.Kernel != "" {
		of = append(of, "kernel "+escape(rep.Kernel))
	}
	return of
}

// ProbesMarkdown renders the same as a Markdown table.
func ProbesMarkdown(w io.Writer, rep *attribute.ProbeReport) error {
	title := "Per-task speculation controls"
	if of := probesOf(rep, mdEscape); len(of) > 0 {
		title += " (" + strings.Join(of, ", ") + ")"
	}
	fmt.Fprintf(w, "%s\n\n", title)
	fmt.Fprintln(w, "| workload | parameters | control | off | on | change | 95% interval | p adj |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s | %s | %s=%s | %s | %s | %s | %s | %s |\n", r.Workload, r.ParamsKey, r.Control, r.State,
			Value(r.Off, r.Unit, false), Value(r.On, r.Unit, false), delta(!r.Significant, r.ChangePct), probeCI(r), probeP(r.PAdjusted))
	}
	for _, c := range rep.Controls {
		if !c.Available {
			fmt.Fprintf(w, "| – | – | %s | unavailable here: %s | | | | |\n", c.Control, mdEscape(c.Reason))
		}
	}
	return nil
}

// ProbesJSON writes the sectax.probes/v2 document.
func ProbesJSON(w io.Writer, rep *attribute.ProbeReport) error {
	return WriteJSON(w, rep)
}

func probeCI(r attribute.ProbeRow) string {
	return pctInterval(r.ChangePctInterval)
}

func probeP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}
