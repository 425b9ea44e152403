package fleet

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Formats are the renderings Write accepts.
var Formats = []string{"text", "md", "json"}

// Write renders the report in format (text, md or json).
func Write(w io.Writer, rep *Report, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case "md":
		return writeMarkdown(w, rep)
	case "text":
		return writeText(w, rep)
	}
	return fmt.Errorf("fleet: unknown format %q", format)
}

// SyntheticNote is printed with every rendering of synthetic runs.
const SyntheticNote = "SYNTHETIC DATA: these runs were generated from documented distributions (a test fixture), not measured"

func groupTitle(g Group) string {
	cpu, kernel := g.CPU, g.Kernel
	if cpu == "" {
		cpu = "(unknown CPU)"
	}
	if kernel == "" {
		kernel = "(unknown kernel)"
	}
	t := cpu + " · kernel " + kernel
	if g.WSL {
		t += " · WSL"
	}
	if g.Synthetic {
		t += " · synthetic"
	}
	return t
}

func pct(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if v > 0 {
		s = "+" + s
	}
	return s + "%"
}

func interval(t WorkloadTax) string {
	if t.Lo == nil || t.Hi == nil {
		return "—"
	}
	return "[" + pct(*t.Lo) + ", " + pct(*t.Hi) + "]"
}

func workloadName(t WorkloadTax) string {
	if t.Params == "" {
		return t.Workload
	}
	return t.Workload + " " + t.Params
}

func writeText(w io.Writer, rep *Report) error {
	var b strings.Builder
	if rep.Synthetic {
		fmt.Fprintf(&b, "%s\n\n", SyntheticNote)
	}
	fmt.Fprintf(&b, "The tax across the fleet: %s against %s, per CPU model × kernel; the host is the unit (%.0f%% intervals across hosts)\n",
		rep.On, rep.Off, rep.Confidence*100)
	if len(rep.Groups) == 0 {
		fmt.Fprintf(&b, "\nno runs labelled %s or %s\n", rep.On, rep.Off)
	}
	for _, g := range rep.Groups {
		fmt.Fprintf(&b, "\n%s\n  %d of %d hosts with a verified on/off pair\n", groupTitle(g), len(g.Paired), len(g.Hosts))
		if len(g.Workloads) > 0 {
			fmt.Fprintf(&b, "  %-44s %-14s %9s  %-20s %s\n", "workload", "metric", "tax", "interval", "hosts")
		}
		for _, t := range g.Workloads {
			fmt.Fprintf(&b, "  %-44s %-14s %9s  %-20s %d\n", workloadName(t), t.Metric, pct(t.Median), interval(t), t.Hosts)
		}
		for _, u := range g.Unpaired {
			fmt.Fprintf(&b, "  not paired: %s: %s\n", u.Host, u.Why)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func writeMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The tax across the fleet: %s against %s\n\n", mdCell(rep.On), mdCell(rep.Off))
	if rep.Synthetic {
		fmt.Fprintf(&b, "> **%s**\n\n", SyntheticNote)
	}
	fmt.Fprintf(&b, "Per CPU model × kernel; the host is the unit: each host's tax comes from its own on/off runs, the group's is the median across hosts with a %.0f%% interval.\n",
		rep.Confidence*100)
	if len(rep.Groups) == 0 {
		fmt.Fprintf(&b, "\nNo runs labelled %s or %s.\n", mdCell(rep.On), mdCell(rep.Off))
	}
	for _, g := range rep.Groups {
		fmt.Fprintf(&b, "\n## %s\n\n%d of %d hosts with a verified on/off pair.\n", mdCell(groupTitle(g)), len(g.Paired), len(g.Hosts))
		if len(g.Workloads) > 0 {
			b.WriteString("\n| workload | metric | tax | interval | hosts |\n|---|---|--:|---|--:|\n")
			for _, t := range g.Workloads {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %d |\n", mdCell(workloadName(t)), mdCell(t.Metric), pct(t.Median), interval(t), t.Hosts)
			}
		}
		if len(g.Unpaired) > 0 {
			b.WriteString("\n")
			for _, u := range g.Unpaired {
				fmt.Fprintf(&b, "- not paired: `%s`: %s\n", u.Host, mdCell(u.Why))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
