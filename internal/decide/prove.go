package decide

import (
	"fmt"
	"slices"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/sysinfo"
)

// ProofLines are the command lines a proof of d boots: the default and
// each option's own line, once.
func ProofLines(d *Decision) []string {
	lines := []string{""}
	for _, o := range d.Options {
		if !slices.Contains(lines, o.Cmdline) {
			lines = append(lines, o.Cmdline)
		}
	}
	return lines
}

// Prove lays each option's prediction beside its boot's observation and
// makes the observed sets the option's (GivesUp, Weakened): where the
// model and the kernel disagree, the kernel is right, and a line says so.
func Prove(d *Decision, in proven.Input) error {
	base := in.Obs[""]
	if base == nil {
		return fmt.Errorf("the proof has no boot with the default command line")
	}
	p := proven.New(in)
	for i := range d.Options {
		o := &d.Options[i]
		got := in.Obs[o.Cmdline]
		if got == nil {
			return fmt.Errorf("the proof has no boot of option %s (%q)", o.Name, o.Cmdline)
		}
		row := p.Add(o.Name, o.Cmdline, base, got, PredictedSets(base, o.GivesUp, o.Weakened), in.Stored[o.Cmdline])
		o.GivesUp, o.Weakened = slices.Clone(row.Observed.GivesUp), slices.Clone(row.Observed.Weakened)
	}
	d.Proof = p
	return nil
}

// PredictedSets are the model's sets of a line on the files mitigated in
// base: gives up and weakened as predicted, the rest kept.
func PredictedSets(base *sysinfo.Snapshot, givesUp, weakened []string) proven.Sets {
	s := proven.Sets{GivesUp: []string{}, Weakened: []string{}, Kept: []string{}}
	for _, v := range base.Vulnerabilities {
		if v.State != mitigation.Mitigated {
			continue
		}
		switch {
		case slices.Contains(givesUp, v.Name):
			s.GivesUp = append(s.GivesUp, v.Name)
		case slices.Contains(weakened, v.Name):
			s.Weakened = append(s.Weakened, v.Name)
		default:
			s.Kept = append(s.Kept, v.Name)
		}
	}
	return s
}
