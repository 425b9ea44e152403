package compare

import (
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/run"
)

// addNotes adds the notes of the comparison (published figures, synthetic
// data, the unit of a side) and the warnings about its sides (warnings.go
// words them).
func (rep *Report) addNotes(a, b Side) {
	var pub []string
	for _, s := range []Side{a, b} {
		if s.Published() {
			pub = append(pub, s.Ref)
		}
	}
	if len(pub) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: published single figures carry no interval and allow no significance test; "+
			"changes involving them are shown untested, as the source reported them", strings.Join(pub, ", ")))
	}
	if synthetic(a) || synthetic(b) {
		rep.Notes = append(rep.Notes, "SYNTHETIC DATA: runs here were generated from documented distributions (a test fixture), not measured")
	}
	for _, s := range []SideInfo{rep.A, rep.B} {
		if s.Unit == "boot" {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s spans %d boots: its samples are per-boot medians (the boot is the unit)", s.Ref, s.Boots))
		}
		if s.Unit == "host" {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s spans %d hosts: its samples are per-host medians (the host is the unit)", s.Ref, len(s.Hosts)))
		}
	}
	if len(pub) == 0 {
		var single []string
		var singleSides []Side
		for i, s := range []SideInfo{rep.A, rep.B} {
			if s.Boots < 2 {
				single = append(single, s.Ref)
				singleSides = append(singleSides, []Side{a, b}[i])
			}
		}
		if len(single) > 0 {
			rep.Warnings = append(rep.Warnings, warnOneBoot(single, singleSides))
		}
	}
	for _, s := range []Side{a, b} {
		for _, r := range s.Runs {
			if r.Status != run.StatusComplete && r.Status != "" {
				rep.Warnings = append(rep.Warnings, warnIncompleteRun(r, s.Ref))
			}
		}
	}
	if len(rep.Env.Confounders) > 0 {
		var names []string
		for _, c := range rep.Env.Confounders {
			names = append(names, c.Name)
		}
		rep.Warnings = append(rep.Warnings, warnConfounded(names))
	}
	ma, mb := rep.A.MitigationMode, rep.B.MitigationMode
	if len(ma) == 1 && len(mb) == 1 && ma[0] == mb[0] && !rep.Env.MitigationsChanged() {
		rep.Warnings = append(rep.Warnings, warnSameMitigations(ma[0]))
	}
	for _, s := range []SideInfo{rep.A, rep.B} {
		if len(s.MitigationMode) > 1 {
			rep.Warnings = append(rep.Warnings, warnMixedSide(s))
		}
	}
	rep.addMetricWarnings(a, b)
}
