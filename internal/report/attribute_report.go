package report

import (
	"fmt"
	"io"
	"strings"

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
	head := Headlined(a.Headline, "attribution of the tax to mitigations ("+attrConvention+")")
	writeForeign(w, termSafe(head), head, "", "  ")
	var cfgs []string
	for _, c := range a.Configs {
		cfgs = append(cfgs, fmt.Sprintf("%s (%s, %s)", c.Name, attrPlural(c.Runs, "run"), attrPlural(c.Boots, "boot")))
	}
	s := "configurations: " + strings.Join(cfgs, ", ")
	writeForeign(w, termSafe(s), s, "", "  ")
	for _, l := range attributionLead(a) {
		writeForeign(w, termSafe(l), l, "", "  ")
	}
	for _, wl := range attributedWorkloads(a) {
		fmt.Fprintf(w, "\n%s %s (%s)\n", termSafe(wl.Workload), termSafe(wl.Params), termSafe(wl.Metric))
		// Too wide a table splits after the change from on.
		t := &table{starts: []int{1, 3}}
		t.add(cell{text: "  configuration"}, cell{text: "tax"}, cell{text: "change from on"}, cell{text: "95% interval"}, cell{text: "p adj"}, cell{text: "share of total"})
		if wl.Total != nil {
			t.add(cell{text: "  off (total)"}, cell{text: attrTax(*wl.Total)}, cell{text: stats.FormatPct(wl.Total.ChangePct)}, cell{text: attrCI(*wl.Total)}, cell{text: probeP(wl.Total.PAdjusted)}, cell{text: "100%"})
		}
		for _, p := range wl.Parts {
			share := none
			if p.SharePct != nil {
				share = fmt.Sprintf("%.0f%%", *p.SharePct)
			}
			t.add(cell{text: "  " + p.Config}, cell{text: attrTax(p.Effect)}, cell{text: stats.FormatPct(p.ChangePct)}, cell{text: attrCI(p.Effect)}, cell{text: probeP(p.PAdjusted)}, cell{text: share})
		}
		if len(wl.Parts) > 0 {
			t.add(cell{text: "  sum of parts"}, cell{text: stats.FormatPct(wl.SumParts)}, cell{}, cell{}, cell{}, cell{})
		}
		if wl.Interaction != nil {
			share := none
			if wl.Total.TaxPct != 0 {
				share = fmt.Sprintf("%.0f%%", 100**wl.Interaction/wl.Total.TaxPct)
			}
			t.add(cell{text: "  interaction"}, cell{text: stats.FormatPct(*wl.Interaction)}, cell{}, cell{}, cell{}, cell{text: share})
		}
		for _, e := range wl.Others {
			t.add(cell{text: "  " + e.Config}, cell{text: attrTax(e)}, cell{text: stats.FormatPct(e.ChangePct)}, cell{text: attrCI(e)}, cell{text: probeP(e.PAdjusted)}, cell{})
		}
		if err := t.write(w, false); err != nil {
			return err
		}
		for _, p := range wl.Parts {
			if p.Expected != "" {
				s := p.Config + ", expected (knowledge base): " + p.Expected
				writeForeign(w, termSafe(s), s, "  ", "    ")
			}
		}
		if len(wl.Waterfall) > 1 {
			var steps []string
			for _, s := range wl.Waterfall[1:] {
				steps = append(steps, fmt.Sprintf("%s %s", s.Config, stats.FormatPct(s.StepPct)))
			}
			s := "waterfall from on: " + strings.Join(steps, " → ")
			writeForeign(w, termSafe(s), s, "  ", "    ")
		}
	}
	fmt.Fprintln(w)
	writeWrapped(w, attrLegend(a), "", "  ")
	for _, n := range a.Notes {
		writeForeign(w, termSafe(n), n, "note: ", "  ")
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
