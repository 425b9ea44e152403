package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/stats"
)

// AttributionText renders an attribution: per workload the total tax, each
// leave-one-out part with its interval and share, the interaction, the
// waterfall and the other configurations.
func AttributionText(w io.Writer, a *attribute.Attribution) error {
	return plainText(w, func(w io.Writer) error { return attributionText(w, a) })
}

func attributionText(w io.Writer, a *attribute.Attribution) error {
	fmt.Fprintln(w, Headlined(a.Headline, "attribution of the tax to mitigations (tax: how much slower on is than the configuration)"))
	var cfgs []string
	for _, c := range a.Configs {
		cfgs = append(cfgs, fmt.Sprintf("%s (%s, %s)", termSafe(c.Name), attrPlural(c.Runs, "run"), attrPlural(c.Boots, "boot")))
	}
	fmt.Fprintf(w, "configurations: %s\n", strings.Join(cfgs, ", "))
	for _, wl := range a.Workloads {
		fmt.Fprintf(w, "\n%s %s (%s)\n", termSafe(wl.Workload), termSafe(wl.Params), termSafe(wl.Metric))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  configuration\ttax\t95% interval\tp\tshare of total\t")
		if wl.Total != nil {
			fmt.Fprintf(tw, "  off (total)\t%s\t%s\t%s\t100%%\t\n", attrTax(*wl.Total), attrCI(*wl.Total), probeP(wl.Total.P))
		}
		for _, p := range wl.Parts {
			share := none
			if p.SharePct != nil {
				share = fmt.Sprintf("%.0f%%", *p.SharePct)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\n", termSafe(p.Config), attrTax(p.Effect), attrCI(p.Effect), probeP(p.P), share)
		}
		if len(wl.Parts) > 0 {
			fmt.Fprintf(tw, "  sum of parts\t%s\t\t\t\t\n", stats.FormatPct(wl.SumParts))
		}
		if wl.Interaction != nil {
			share := none
			if wl.Total.TaxPct != 0 {
				share = fmt.Sprintf("%.0f%%", 100**wl.Interaction/wl.Total.TaxPct)
			}
			fmt.Fprintf(tw, "  interaction\t%s\t\t\t%s\t\n", stats.FormatPct(*wl.Interaction), share)
		}
		for _, e := range wl.Others {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\t\n", termSafe(e.Config), attrTax(e), attrCI(e), probeP(e.P))
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
	fmt.Fprintf(w, "\ntax ~: not significant at alpha %v (Mann-Whitney U); interaction: total minus the sum of the parts.\n", a.Alpha)
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// AttributionMarkdown renders the same as Markdown tables.
func AttributionMarkdown(w io.Writer, a *attribute.Attribution) error {
	if a.Headline != "" {
		fmt.Fprintf(w, "**%s**\n\n", mdEscape(a.Headline))
	}
	for _, wl := range a.Workloads {
		fmt.Fprintf(w, "### %s %s (%s)\n\n| configuration | tax | 95%% interval | p | share of total |\n|---|---|---|---|---|\n", mdEscape(wl.Workload), mdEscape(wl.Params), mdEscape(wl.Metric))
		if wl.Total != nil {
			fmt.Fprintf(w, "| off (total) | %s | %s | %s | 100%% |\n", attrTax(*wl.Total), attrCI(*wl.Total), probeP(wl.Total.P))
		}
		for _, p := range wl.Parts {
			share := none
			if p.SharePct != nil {
				share = fmt.Sprintf("%.0f%%", *p.SharePct)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdEscape(p.Config), attrTax(p.Effect), attrCI(p.Effect), probeP(p.P), share)
		}
		if wl.Interaction != nil {
			fmt.Fprintf(w, "| interaction | %s | | | |\n", stats.FormatPct(*wl.Interaction))
		}
		for _, e := range wl.Others {
			fmt.Fprintf(w, "| %s | %s | %s | %s | |\n", mdEscape(e.Config), attrTax(e), attrCI(e), probeP(e.P))
		}
		fmt.Fprintln(w)
	}
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
