package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/workload"
)

// workloadTags maps a workload id to the knowledge base's tag of the
// main kernel path it stresses, as the workload declares it.
var workloadTags = workload.MainPaths()

// isWSL reports whether a side ran inside WSL 2, by its kernel release or
// the baseline's description.
func isWSL(s compare.SideInfo) bool {
	for _, k := range s.Kernel {
		if strings.Contains(strings.ToLower(k), "microsoft") {
			return true
		}
	}
	return strings.Contains(s.Environment, "WSL") || strings.Contains(s.Title, "WSL")
}

func isVMGuest(a, b compare.SideInfo) bool { return isWSL(a) || isWSL(b) }

// Meaning returns a few plain sentences on what the comparison means,
// generated from the numbers and the mitigation knowledge base: which work
// gains most, what is unchanged, which protections are given up, and what
// holds inside a VM guest. It states facts only where the report has them.
func Meaning(rep *compare.Report) []string {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		kb = nil
	}
	var out []string
	sameMitigations := false
	for _, w := range rep.Warnings {
		if w.Kind == "same-mitigations" {
			sameMitigations = true
		}
	}
	if sameMitigations {
		out = append(out, "Both sides ran with the same mitigation settings, so what follows is not a mitigation tax: "+
			"any difference is noise, load or another change between the runs (see the warnings).")
	}

	type ranked struct {
		wl  compare.Workload
		m   compare.Metric
		imp float64
	}
	var moved, still []ranked
	for _, wl := range rep.Workloads {
		if wl.Control || len(wl.Metrics) == 0 {
			continue
		}
		m := wl.Metrics[0]
		v, ok := impact(m)
		if !ok {
			continue
		}
		if m.Verdict == compare.VerdictSame {
			still = append(still, ranked{wl, m, v})
		} else {
			moved = append(moved, ranked{wl, m, v})
		}
	}
	sort.SliceStable(moved, func(i, j int) bool { return math.Abs(moved[i].imp) > math.Abs(moved[j].imp) })
	published := rep.A.Published || rep.B.Published
	qual := "significantly"
	if published {
		qual = "as published (no significance test is possible on single figures)"
	}
	tagNote := func(id string) string {
		if t, ok := workloadTags[id]; ok && kb != nil {
			return " (" + kb.TagLabel(t) + ")"
		}
		return ""
	}
	path := func(id string) string {
		if t, ok := workloadTags[id]; ok && kb != nil {
			return ", which stresses " + kb.TagLabel(t) + ","
		}
		return ""
	}
	if len(moved) > 0 {
		top := moved[0]
		verb := "gains most"
		if top.imp < 0 {
			verb = "loses most"
		}
		out = append(out, fmt.Sprintf("%s%s %s: B is %s as fast as A (%s %s), %s.",
			top.wl.ID, path(top.wl.ID), verb, Speedup(top.m.Speedup), top.m.Name, top.m.Delta, qual))
		if len(moved) > 1 {
			var rest []string
			for _, r := range moved[1:] {
				rest = append(rest, fmt.Sprintf("%s %s%s", r.wl.ID, Speedup(r.m.Speedup), tagNote(r.wl.ID)))
			}
			then := "Then: " + strings.Join(rest, ", ") + "."
			if !sameMitigations {
				then += " Work that enters the kernel or switches tasks often pays the mitigations on every entry and switch; work that stays in user space pays little."
			}
			out = append(out, then)
		}
	}
	if len(still) > 0 {
		var ids []string
		for _, r := range still {
			ids = append(ids, r.wl.ID)
		}
		out = append(out, fmt.Sprintf("No significant difference for %s: at α = %v the data cannot tell the sides apart there.", strings.Join(ids, ", "), rep.Alpha))
	}
	var calm []string
	for _, wl := range rep.Workloads {
		if wl.Control && len(wl.Metrics) > 0 && wl.Metrics[0].Verdict == compare.VerdictSame {
			calm = append(calm, wl.ID)
		}
	}
	if len(calm) > 0 {
		out = append(out, fmt.Sprintf("The negative control %s, which does not enter the kernel, did not move significantly: no sign that clock speed or load changed between the sides.",
			strings.Join(calm, ", ")))
	}
	if rep.Geomean != nil {
		g := rep.Geomean.Speedup
		out = append(out, fmt.Sprintf("Over all %d workloads (geometric mean of the primary metrics) B is %s as good as A: %s.",
			rep.Geomean.N, Speedup(g), overall(g)))
	}

	// Protections given up or gained.
	if kb != nil {
		var gaveUp, gained []string
		for _, v := range rep.Env.Vulnerabilities {
			e, ok := kb.LookupVulnerability(v.Name)
			if !ok {
				continue
			}
			fv, tv := stateOf(v.StateA, v.A), stateOf(v.StateB, v.B)
			switch {
			case fv == "mitigated" && tv == "vulnerable":
				gaveUp = append(gaveUp, fmt.Sprintf("%s: %s", e.CommonName, e.Threat))
			case fv == "vulnerable" && tv == "mitigated":
				gained = append(gained, fmt.Sprintf("%s: %s", e.CommonName, e.Threat))
			}
		}
		if len(gaveUp) > 0 {
			out = append(out, "B gives up these protections: "+strings.Join(gaveUp, "; and ")+".")
		}
		if len(gained) > 0 {
			out = append(out, "B gains these protections: "+strings.Join(gained, "; and ")+".")
		}
		// Mitigation parameters B adds or drops; "off" forms (mitigations=off,
		// nopti, spectre_v2=off) give protections up, others change them.
		var toggles []string
		type change struct {
			verb   string
			tokens []string
		}
		var changes []change
		for _, side := range []struct {
			tokens          []string
			offVerb, others string
		}{
			{rep.Env.CmdlineAdded, "adds %s, which gives up", "adds %s, which changes"},
			{rep.Env.CmdlineRemoved, "drops %s, which restores", "drops %s, which changes"},
		} {
			var off, other []string
			for _, t := range side.tokens {
				p, ok := kb.LookupParam(t)
				switch {
				case !ok:
				case !p.Mitigation:
					if side.offVerb[0] == 'a' {
						toggles = append(toggles, t)
					}
				case isOffToken(t):
					off = append(off, t)
				default:
					other = append(other, t)
				}
			}
			if len(off) > 0 {
				changes = append(changes, change{fmt.Sprintf(side.offVerb, strings.Join(off, " ")), off})
			}
			if len(other) > 0 {
				changes = append(changes, change{fmt.Sprintf(side.others, strings.Join(other, " ")), other})
			}
		}
		if len(gaveUp)+len(gained) == 0 {
			for _, c := range changes {
				names, _ := kb.AffectedBy(c.tokens...)
				var common []string
				for _, n := range names {
					if e, ok := kb.LookupVulnerability(n); ok {
						common = append(common, e.CommonName)
					}
				}
				if len(common) > 0 {
					out = append(out, fmt.Sprintf("B's command line %s the kernel's protections against %s, "+
						"as far as this CPU needs them (a side that records its vulnerability files shows which ones it did).",
						c.verb, strings.Join(common, ", ")))
				}
			}
		}
		if len(toggles) > 0 {
			why := ""
			for _, t := range toggles {
				if t == "audit=0" {
					why = " (audit=0 spares every syscall the audit hooks)"
				}
			}
			out = append(out, fmt.Sprintf("B also adds %s: not CPU mitigations, but they can move the numbers too%s, so part of the difference may be theirs.",
				strings.Join(toggles, " "), why))
		}
		if isVMGuest(rep.A, rep.B) {
			out = append(out, "This is a WSL 2 guest. "+kb.VMGuestGeneral)
		}
	}

	if len(rep.Env.Confounders) > 0 || len(rep.Controls) > 0 {
		out = append(out, "Caution: something besides the mitigations differs between the sides (see Confounders and Warnings), so not all of the difference is the mitigations' doing.")
	}
	if published {
		out = append(out, "These are published single figures: they show the size of the effect the source saw, not its uncertainty. Measure your own machine with sectax run to get intervals and p-values.")
	}
	return out
}

// stateOf is a vulnerability state from the recorded state or, when absent,
// the raw sysfs line.
func stateOf(state, raw string) string {
	if state != "" {
		return state
	}
	switch {
	case strings.HasPrefix(raw, "Mitigation"):
		return "mitigated"
	case strings.HasPrefix(raw, "Vulnerable"):
		return "vulnerable"
	case strings.HasPrefix(raw, "Not affected"):
		return "not_affected"
	}
	return "unknown"
}

func overall(g float64) string {
	switch {
	case g >= 1.005:
		return fmt.Sprintf("A costs %.0f%% more time or resources than B on this mix", (g-1)*100)
	case g <= 0.995:
		return fmt.Sprintf("B costs %.0f%% more time or resources than A on this mix", (1/g-1)*100)
	}
	return "no overall difference on this mix"
}

// isOffToken reports whether a mitigation parameter switches protection
// off: mitigations=off, nopti, nospectre_v2, spectre_v2=off, pti=off.
func isOffToken(t string) bool {
	return mitigation.TurnsOff(t)
}
