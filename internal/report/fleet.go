package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/fleet"
	"github.com/sectax/sectax/internal/stats"
)

// FleetSyntheticNote is shown with every rendering of synthetic runs.
const FleetSyntheticNote = "SYNTHETIC DATA: these runs were generated from documented distributions (a test fixture), not measured"

func fleetGroupTitle(g fleet.Group) string {
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

func fleetInterval(t fleet.WorkloadTax) string {
	return pctInterval(t.Interval)
}

func fleetWorkload(t fleet.WorkloadTax) string {
	if t.Params == "" {
		return t.Workload
	}
	return t.Workload + " " + t.Params
}

func fleetHeadline(rep *fleet.Report) string {
	return fmt.Sprintf("The tax across the fleet: %s against %s, per CPU model × kernel; the host is the unit (%.0f%% intervals across hosts)",
		rep.On, rep.Off, rep.Confidence*100)
}

func fleetText(w io.Writer, rep *fleet.Report) error {
	b := newTextBuf(w)
	if rep.Synthetic {
		writeWrapped(b, FleetSyntheticNote, "", "  ")
		b.WriteString("\n")
	}
	writeForeign(b, termSafe(fleetHeadline(rep)), fleetHeadline(rep), "", "  ")
	if len(rep.Groups) == 0 {
		fmt.Fprintf(b, "\nno runs labelled %s or %s\n", termSafe(rep.On), termSafe(rep.Off))
	}
	for _, g := range rep.Groups {
		b.WriteString("\n")
		writeForeign(b, termSafe(fleetGroupTitle(g)), fleetGroupTitle(g), "", "  ")
		fmt.Fprintf(b, "  %d of %d hosts with a verified on/off pair\n", len(g.Paired), len(g.Hosts))
		if len(g.Workloads) > 0 {
			// Columns as wide as their longest cell: a long parameter
			// list no longer pushes its row out of line.
			t := &table{}
			t.add(cell{text: "  workload"}, cell{text: "metric"}, cell{text: "tax", right: true}, cell{text: "interval"}, cell{text: "hosts", right: true})
			for _, x := range g.Workloads {
				t.add(cell{text: "  " + fleetWorkload(x)}, cell{text: x.Metric}, cell{text: stats.FormatPct(x.Median), right: true},
					cell{text: fleetInterval(x)}, cell{text: fmt.Sprint(x.Hosts), right: true})
			}
			if err := t.write(b, false); err != nil {
				return err
			}
		}
		for _, u := range g.Unpaired {
			s := "not paired: " + u.Host + ": " + u.Why
			writeForeign(b, termSafe(s), s, "  ", "    ")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fleetMarkdown(w io.Writer, rep *fleet.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The tax across the fleet: %s against %s\n\n", mdEscape(rep.On), mdEscape(rep.Off))
	if rep.Synthetic {
		fmt.Fprintf(&b, "> **%s**\n\n", FleetSyntheticNote)
	}
	fmt.Fprintf(&b, "Per CPU model × kernel; the host is the unit: each host's tax comes from its own on/off runs, the group's is the median across hosts with a %.0f%% interval.\n",
		rep.Confidence*100)
	if len(rep.Groups) == 0 {
		fmt.Fprintf(&b, "\nNo runs labelled %s or %s.\n", mdEscape(rep.On), mdEscape(rep.Off))
	}
	for _, g := range rep.Groups {
		fmt.Fprintf(&b, "\n## %s\n\n%d of %d hosts with a verified on/off pair.\n", mdEscape(fleetGroupTitle(g)), len(g.Paired), len(g.Hosts))
		if len(g.Workloads) > 0 {
			b.WriteString("\n| workload | metric | tax | interval | hosts |\n|---|---|--:|---|--:|\n")
			for _, t := range g.Workloads {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %d |\n", mdEscape(fleetWorkload(t)), mdEscape(t.Metric), stats.FormatPct(t.Median), fleetInterval(t), t.Hosts)
			}
		}
		if len(g.Unpaired) > 0 {
			b.WriteString("\n")
			for _, u := range g.Unpaired {
				fmt.Fprintf(&b, "- not paired: %s: %s\n", code(u.Host), mdEscape(u.Why))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
