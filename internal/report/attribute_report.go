package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/stats"
)

// AttributionText renders an attribution: per workload the total tax, each
// leave-one-out part with its interval and share, the interaction, the
// waterfall and the other configurations.
func AttributionText(w io.Writer, a *attribute.Attribution) error {
	return plainText(w, func(w io.Writer) error { return attributionText(w, a) })
}

func attributionText(w io.Writer, a *attribute.Attribution) error {
	fmt.Fprintln(w, Headlined(a.Headline, "attribution of the tax to mitigations ("+attrConvention+")"))
	var cfgs []string
	for _, c := range a.Configs {
		cfgs = append(cfgs, fmt.Sprintf("%s (%s, %s)", termSafe(c.Name), attrPlural(c.Runs, "run"), attrPlural(c.Boots, "boot")))
	}
	fmt.Fprintf(w, "configurations: %s\n", strings.Join(cfgs, ", "))
	for _, l := range attributionLead(a) {
		fmt.Fprintln(w, termSafe(l))
	}
	for _, wl := range attributedWorkloads(a) {
		fmt.Fprintf(w, "\n%s %s (%s)\n", termSafe(wl.Workload), termSafe(wl.Params), termSafe(wl.Metric))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  configuration\ttax\tchange from on\t95% interval\tp adj\tshare of total\t")
		if wl.Total != nil {
			fmt.Fprintf(tw, "  off (total)\t%s\t%s\t%s\t%s\t100%%\t\n", attrTax(*wl.Total), stats.FormatPct(wl.Total.ChangePct), attrCI(*wl.Total), probeP(wl.Total.PAdjusted))
		}
		for _, p := range wl.Parts {
			share := none
			if p.SharePct != nil {
				share = fmt.Sprintf("%.0f%%", *p.SharePct)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t\n", termSafe(p.Config), attrTax(p.Effect), stats.FormatPct(p.ChangePct), attrCI(p.Effect), probeP(p.PAdjusted), share)
		}
		if len(wl.Parts) > 0 {
			fmt.Fprintf(tw, "  sum of parts\t%s\t\t\t\t\t\n", stats.FormatPct(wl.SumParts))
		}
		if wl.Interaction != nil {
			share := none
			if wl.Total.TaxPct != 0 {
				share = fmt.Sprintf("%.0f%%", 100**wl.Interaction/wl.Total.TaxPct)
			}
			fmt.Fprintf(tw, "  interaction\t%s\t\t\t\t%s\t\n", stats.FormatPct(*wl.Interaction), share)
		}
		for _, e := range wl.Others {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\t\n", termSafe(e.Config), attrTax(e), stats.FormatPct(e.ChangePct), attrCI(e), probeP(e.PAdjusted))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, p := range wl.Parts {
			if p.Expected != "" {
				fmt.Fprintf(w, "  %s, expected (knowledge base): %s\n", termSafe(p.Config), termSafe(p.Expected))
			}
		}
		if len(wl.Waterfall) > 1 {
			var steps []string
			for _, s := range wl.Waterfall[1:] {
				steps = append(steps, fmt.Sprintf("%s %s", termSafe(s.Config), stats.FormatPct(s.StepPct)))
			}
			fmt.Fprintf(w, "  waterfall from on: %s\n", strings.Join(steps, " → "))
		}
	}
	fmt.Fprintf(w, "\n%s\n", attrLegend(a))
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", termSafe(n))
	}
	return nil
}

// attrConvention names both signs: the attribution's tax and compare's
// change, side by side in every format.
const attrConvention = "tax: how much slower on is than the configuration; change from on: the configuration's change from on, as 'sectax compare on CONFIG' gives it"

// attrLegend explains the significance marks: one Holm family over the
// whole attribution.
func attrLegend(a *attribute.Attribution) string {
	return fmt.Sprintf("tax ~: not significant at alpha %v on p adj (Mann-Whitney U, Holm-corrected over all %d hypotheses of the attribution: every configuration's primary metrics against on, as compare corrects them); interaction: total minus the sum of the parts.",
		a.Alpha, a.Family)
}

// attributedWorkloads are the workloads whose tables a report draws: none
// when there is nothing to attribute (no configuration changed a
// mitigation against on), so no share or interaction of noise is shown.
func attributedWorkloads(a *attribute.Attribution) []attribute.WorkloadAttribution {
	if a.NothingToAttribute {
		return nil
	}
	return a.Workloads
}

// attributionLead is what an attribution says before its tables, read
// from its one comparison: compare's conclusion of every configuration
// against on (the first line of `sectax compare on CONFIG...`), whether
// there is nothing to attribute, and what the negative controls say.
func attributionLead(a *attribute.Attribution) []string {
	c := a.Comparison
	if c == nil {
		return nil
	}
	var sides []string
	for i, ref := range c.Sides() {
		sides = append(sides, compare.SideLetter(i)+" = "+ref)
	}
	out := []string{fmt.Sprintf("compare (%s): %s.", strings.Join(sides, ", "), MultiConclusion(c))}
	if a.NothingToAttribute {
		out = append(out, "nothing to attribute: no configuration changed a mitigation against on, so what differs is noise or another change between the runs, not a tax (see 'sectax compare' on the same runs)")
	}
	for i, rep := range c.Comparisons {
		for _, f := range rep.Controls {
			if f.Status == compare.ControlUntested {
				continue
			}
			word := "control"
			if f.Status == compare.ControlMoved {
				word = "warning"
			}
			out = append(out, fmt.Sprintf("%s, %s = %s against on: %s", word, compare.SideLetter(i+1), rep.B.Ref, f.Message))
		}
	}
	return out
}

// AttributionMarkdown renders the same as Markdown tables.
func AttributionMarkdown(w io.Writer, a *attribute.Attribution) error {
	if a.Headline != "" {
		fmt.Fprintf(w, "**%s**\n\n", mdEscape(a.Headline))
	}
	for _, l := range attributionLead(a) {
		fmt.Fprintf(w, "%s\n\n", mdEscape(l))
	}
	fmt.Fprintf(w, "%s.\n\n", mdEscape(capital(attrConvention)))
	for _, wl := range attributedWorkloads(a) {
		fmt.Fprintf(w, "### %s %s (%s)\n\n| configuration | tax | change from on | 95%% interval | p adj | share of total |\n|---|---|---|---|---|---|\n", mdEscape(wl.Workload), mdEscape(wl.Params), mdEscape(wl.Metric))
		if wl.Total != nil {
			fmt.Fprintf(w, "| off (total) | %s | %s | %s | %s | 100%% |\n", attrTax(*wl.Total), stats.FormatPct(wl.Total.ChangePct), attrCI(*wl.Total), probeP(wl.Total.PAdjusted))
		}
		for _, p := range wl.Parts {
			share := none
			if p.SharePct != nil {
				share = fmt.Sprintf("%.0f%%", *p.SharePct)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", mdEscape(p.Config), attrTax(p.Effect), stats.FormatPct(p.ChangePct), attrCI(p.Effect), probeP(p.PAdjusted), share)
		}
		if wl.Interaction != nil {
			fmt.Fprintf(w, "| interaction | %s | | | | |\n", stats.FormatPct(*wl.Interaction))
		}
		for _, e := range wl.Others {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | |\n", mdEscape(e.Config), attrTax(e), stats.FormatPct(e.ChangePct), attrCI(e), probeP(e.PAdjusted))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s\n\n", mdEscape(attrLegend(a)))
	for _, n := range a.Notes {
		fmt.Fprintf(w, "Note: %s\n\n", mdEscape(n))
	}
	return nil
}

// AttributionJSON writes the sectax.attribution/v2 document.
func AttributionJSON(w io.Writer, a *attribute.Attribution) error {
	return WriteJSON(w, a)
}

// attrTax is the tax with benchstat's "~" for a change that is not
// significant.
func attrTax(e attribute.Effect) string {
	s := stats.FormatPct(e.TaxPct)
	if !e.Significant {
		s += " ~"
	}
	return s
}

func attrCI(e attribute.Effect) string {
	return pctInterval(e.TaxPctInterval)
}

func attrPlural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
