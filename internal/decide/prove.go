package decide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/sysinfo"
)

// RecommendedRow names the proof's row of the recommended line (Line: the
// option with the per-bug values that keep what a kept vector relies on).
const RecommendedRow = "recommended line"

// ProofLine is the command line a proof boots for o: its own, also where
// the model folds it into an earlier option (SameAs).
func (o Option) ProofLine() string {
	if o.line != "" {
		return o.line
	}
	return o.Cmdline
}

// ProofLines are the command lines a proof of d boots: the default, each
// option's own line and the recommended line, once each.
func ProofLines(d *Decision) []string {
	lines := []string{""}
	add := func(l string) {
		if l = strings.TrimSpace(l); !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	for _, o := range d.Options {
		add(o.ProofLine())
	}
	if d.Line != "" {
		add(d.Line)
	}
	return lines
}

// Prove lays each option's prediction beside the boot of its own line
// (every file, mitigation.Knowledge.PredictFiles on the default boot) and
// makes the observed sets the option's (GivesUp, Weakened): where the
// model and the kernel disagree, the kernel is right, and a line says so.
// An option folded into keep-all with no line of its own is not booted
// (a note says so); the recommended line is a row of its own.
func Prove(d *Decision, in proven.Input, kb *mitigation.Knowledge) error {
	base := in.Obs[""]
	if base == nil {
		return fmt.Errorf("the proof has no boot with the default command line")
	}
	p := proven.New(in)
	for i := range d.Options {
		o := &d.Options[i]
		line := strings.TrimSpace(o.ProofLine())
		if line == "" && o.Name != KeepAll {
			p.Notes = append(p.Notes, fmt.Sprintf("%s: no command line of this kernel spells it (the same as %s here), so no boot proves it", o.Name, o.SameAs))
			continue
		}
		got := in.Obs[line]
		if got == nil {
			return fmt.Errorf("the proof has no boot of option %s (%q)", o.Name, line)
		}
		row := p.Add(o.Name, line, base, got, mitigation.Views(PredictLine(kb, base, line)), in.Stored[line])
		o.GivesUp, o.Weakened = slices.Clone(row.Observed.GivesUp), slices.Clone(row.Observed.Weakened)
	}
	if l := strings.TrimSpace(d.Line); l != "" {
		got := in.Obs[l]
		if got == nil {
			return fmt.Errorf("the proof has no boot of the recommended line (%q)", l)
		}
		p.Add(RecommendedRow, l, base, got, mitigation.Views(PredictLine(kb, base, l)), in.Stored[l])
	}
	d.Proof = p
	return nil
}

// PredictLine is the model's per-file prediction of line added to the
// default boot base's own command line (the line the proof boots).
func PredictLine(kb *mitigation.Knowledge, base *sysinfo.Snapshot, line string) []mitigation.FilePrediction {
	files, _ := kb.PredictFiles(base.Machine(), mitigation.ParseCmdline(strings.TrimSpace(base.Cmdline.Raw+" "+line)).Params)
	return files
}
