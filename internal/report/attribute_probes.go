package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sectax/sectax/internal/attribute"
)

// ProbesText renders the tax of each per-task speculation control: one row
// per workload and control, with the change of the median when the control
// is on, its interval and p-value, then what the kernel offers.
func ProbesText(w io.Writer, rep *attribute.ProbeReport) error {
	return plainText(w, func(w io.Writer) error { return probesText(w, rep) })
}

func probesText(w io.Writer, rep *attribute.ProbeReport) error {
	fmt.Fprintln(w, strings.Join(append([]string{"per-task speculation controls, one boot"}, probesOf(rep, termSafe)...), ", "))
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "control\tkernel\tavailable")
	for _, c := range rep.Controls {
		av := "yes"
		if !c.Available {
			av = "no: " + c.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Control, c.Kernel, av)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(rep.Rows) == 0 {
		fmt.Fprintln(w, "nothing measured: this kernel offers no per-task control")
	} else {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "workload\tparameters\tcontrol\toff\ton\tchange\t95% interval\tp adj\t")
		for _, r := range rep.Rows {
			fmt.Fprintf(tw, "%s\t%s\t%s=%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Workload, r.ParamsKey, r.Control, r.State,
				Value(r.Off, r.Unit, false), Value(r.On, r.Unit, false), delta(!r.Significant, r.ChangePct), probeCI(r), probeP(r.PAdjusted))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nchange: of the median when the control is on (~: not significant at alpha %v; p adj: Mann-Whitney U, Holm-corrected over every control's workloads together).\n", rep.Alpha)
		fmt.Fprintln(w, "verified in /proc before every timed window:")
		seen := map[string]bool{}
		for _, r := range rep.Rows {
			line := fmt.Sprintf("  %s %s, %s=%s: %s", r.Workload, r.ParamsKey, r.Control, r.State, r.Verified)
			if !seen[line] {
				seen[line] = true
				fmt.Fprintln(w, line)
			}
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, r := range rep.Rows {
		for _, x := range r.Warnings {
			fmt.Fprintf(w, "warning: %s %s, %s: %s\n", r.Workload, r.ParamsKey, r.Control, x)
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
