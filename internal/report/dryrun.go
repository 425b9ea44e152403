package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/vm"
)

// DryRunLine opens the output of every --dry-run (campaign start, lab,
// wslconfig set/unset): one wording for all three.
const DryRunLine = "Dry run: nothing was changed."

// estimateText is an estimate as the dry runs show it.
func estimateText(e plan.Estimate) string {
	if e.Duration == 0 {
		return "no estimate"
	}
	return e.String()
}

// CampaignPreview lays out the plan of 'campaign start --dry-run': the
// configurations, the steps in order with each boot's command line, what
// is changed on this machine and how it is put back, how resume happens,
// and the estimate.
func CampaignPreview(w io.Writer, p *campaign.Preview) error {
	return plainText(w, func(w io.Writer) error { return campaignPreview(w, p) })
}

func campaignPreview(w io.Writer, p *campaign.Preview) error {
	ew := &errWriter{w: w}
	fmt.Fprintln(ew, DryRunLine)
	fmt.Fprintln(ew)
	writeWrapped(ew, fmt.Sprintf("campaign start --via %s: %d configurations, %d boots, suite %s, %s",
		termSafe(p.Via), len(p.Configs), len(p.Steps), termSafe(p.Suite), estimateText(p.Estimate)), "", "  ")
	labels := fmt.Sprintf("labels %s-CONFIG", termSafe(p.Label))
	if p.LabelFromID {
		labels += " (XXXXXX: the end of the campaign's id, drawn at start; --label names them)"
	}
	writeWrapped(ew, labels, "", "  ")
	seedLine(ew, "seed", "start", "--seed", p.Seed, p.SeedDrawn)
	fmt.Fprintln(ew)
	fmt.Fprintln(ew, "configurations:")
	t := NewTable()
	for _, c := range p.Configs {
		t.Row("  "+termSafe(c.Name), termSafe(c.Params))
	}
	t.Write(ew, false)
	fmt.Fprintln(ew)
	fmt.Fprintln(ew, "steps (each boot verified before it is measured):")
	// The command line wraps at its spaces under its own column, so that
	// the table fits TextWidth.
	rows := [][]string{{"  step", "configuration", "boot", "kernel command line"}}
	raw := []string{rows[0][3]}
	for _, s := range p.Steps {
		rows = append(rows, []string{fmt.Sprintf("  %d", s.Step), termSafe(s.Config), fmt.Sprint(s.Boot), termSafe(s.Cmdline)})
		raw = append(raw, s.Cmdline)
	}
	writeTableWrapped(ew, rows, raw)
	fmt.Fprintln(ew)
	fmt.Fprintln(ew, "what start changes on this machine, and how it is put back:")
	for _, c := range p.Changes {
		writeForeign(ew, termSafe(c.What), c.What, "  - ", "    ")
		writeForeign(ew, termSafe(c.Restore), c.Restore, "    put back: ", "      ")
	}
	writeWrapped(ew, "the campaign's state and its runs in the store", "  - ", "    ")
	writeWrapped(ew, "kept (they are the results); 'sectax campaign abort' stops it and puts back the rest", "    put back: ", "      ")
	fmt.Fprintln(ew)
	writeForeign(ew, termSafe(p.Resume), p.Resume, "resume after each boot: ", "  ")
	for _, n := range p.Notes {
		writeForeign(ew, termSafe(n), n, "note: ", "  ")
	}
	return ew.err
}

// LabPreview lays out the plan of 'lab --dry-run': the kernels, the
// accelerator, each boot with its label, kernel command line and QEMU
// command line, and the estimate.
func LabPreview(w io.Writer, p *lab.Preview) error {
	return plainText(w, func(w io.Writer) error { return labPreview(w, p) })
}

func labPreview(w io.Writer, p *lab.Preview) error {
	ew := &errWriter{w: w}
	fmt.Fprintln(ew, DryRunLine)
	fmt.Fprintln(ew)
	n := len(p.Boots)
	if p.Probe != nil {
		fmt.Fprintf(ew, "lab: a probe boot, then the boots of the plan, accel %s\n", termSafe(p.Accel))
	} else {
		writeWrapped(ew, fmt.Sprintf("lab: %d boots, accel %s, %s", n, termSafe(p.Accel), estimateText(p.Estimate)), "", "  ")
	}
	if p.AccelNote != "" {
		writeForeign(ew, termSafe(p.AccelNote), p.AccelNote, "  ", "    ")
	}
	if p.Accel == vm.AccelTCG {
		fmt.Fprintln(ew, "  emulated (TCG): timings are not hardware costs")
	}
	seedLine(ew, "plan seed", "the lab", "--plan-seed", p.Seed, p.SeedDrawn)
	fmt.Fprintln(ew)
	fmt.Fprintln(ew, "kernels:")
	t := NewTable()
	for _, k := range p.Kernels {
		mods := "no modules"
		if k.Modules != "" {
			mods = "modules " + termSafe(k.Modules)
		}
		t.Row("  "+termSafe(k.Name), termSafe(k.Image), mods)
	}
	t.Write(ew, false)
	boots := p.Boots
	if p.Probe != nil {
		boots = []lab.PreviewBoot{*p.Probe}
	}
	for _, b := range boots {
		fmt.Fprintln(ew)
		if b.Boot == 0 {
			fmt.Fprintf(ew, "probe boot (%s):\n", termSafe(b.Label))
		} else {
			fmt.Fprintf(ew, "boot %d of %d: %s\n", b.Boot, n, termSafe(b.Label))
		}
		writeForeign(ew, termSafe(b.Cmdline), b.Cmdline, "  kernel command line: ", "    ")
		q := make([]string, len(b.QEMU))
		for i, a := range b.QEMU {
			q[i] = advise.ShellQuote(termSafe(a))
		}
		writeLabelled(ew, "  qemu:", strings.Join(q, " "), "    ")
	}
	fmt.Fprintln(ew)
	for _, note := range p.Notes {
		writeForeign(ew, termSafe(note), note, "note: ", "  ")
	}
	return ew.err
}

// seedLine says which seed orders a dry run's boots, and, when the
// preview drew it, that the real command draws another unless given flag.
func seedLine(w io.Writer, what, who, flag string, seed int64, drawn bool) {
	if drawn {
		writeWrapped(w, fmt.Sprintf("boot order from %s %d, drawn for this preview: %s draws another; give it %s %d for this order", what, seed, who, flag, seed), "", "  ")
		return
	}
	fmt.Fprintf(w, "boot order from %s %d\n", what, seed)
}
