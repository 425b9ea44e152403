package compare

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/workload"
)

// Meaning is what the comparison means, as data: the workloads ranked by
// how much they moved, the protections B gives up or gains, the
// mitigation parameters B's command line adds or drops, and what holds in
// a VM guest. Reports word it ("What this means"); they compute nothing.
type Meaning struct {
	// Moved are the non-control workloads whose primary metric changed
	// (significantly, or as published), largest impact first.
	Moved []Ranked `json:"moved"`
	// Still are the non-control workloads whose primary metric did not
	// change significantly.
	Still []Ranked `json:"still"`
	// GaveUp and Gained are vulnerabilities that went from mitigated to
	// vulnerable in B, and back.
	GaveUp []Protection `json:"protections_given_up"`
	Gained []Protection `json:"protections_gained"`
	// Cmdline are the mitigation parameters B's command line adds or
	// drops, with the vulnerabilities they govern; shown when no
	// vulnerability file tells what changed.
	Cmdline []CmdlineChange `json:"cmdline_changes"`
	// OtherParams are parameters B adds that are no CPU mitigation but
	// can move the numbers (audit=0, quiet, ...).
	OtherParams []string `json:"other_params"`
	// VMGuest is set when a side's recorded environment says it ran
	// inside a WSL 2 guest; VMGuestSides names those sides (A, B) and
	// VMGuestNote is what holds there.
	VMGuest      bool     `json:"vm_guest"`
	VMGuestSides []string `json:"vm_guest_sides,omitempty"`
	VMGuestNote  string   `json:"vm_guest_note,omitempty"`
}

// Ranked is the primary metric of one workload.
type Ranked struct {
	Workload string `json:"workload"`
	Metric   string `json:"metric"`
	// Stresses is the kernel path the workload stresses ("entry/exit").
	Stresses string  `json:"stresses,omitempty"`
	Speedup  float64 `json:"speedup"`
	// ImpactPct is how much better B is, in percent of A, in the metric's
	// better direction ((speedup−1)·100); ChangePct the change of the
	// median from A to B in percent (the metric's change_pct).
	ImpactPct float64 `json:"impact_pct"`
	ChangePct float64 `json:"change_pct"`
	// Verdict is the metric's: VerdictSame ("~") when not significant.
	Verdict string `json:"verdict"`
}

// Protection is a vulnerability a side gives up or gains protection from.
type Protection struct {
	Vulnerability string `json:"vulnerability"`
	CommonName    string `json:"common_name"`
	Threat        string `json:"threat"`
}

// Directions of a command-line change.
const (
	DirAdds  = "adds"
	DirDrops = "drops"
)

// CmdlineChange is a group of mitigation parameters B adds or drops.
type CmdlineChange struct {
	Direction string `json:"direction"`
	// Off is set when the parameters switch protection off
	// (mitigations=off, nopti, spectre_v2=off): adding them gives
	// protection up, dropping them restores it.
	Off    bool     `json:"off"`
	Tokens []string `json:"tokens"`
	// Affects are the common names of the vulnerabilities they govern: on
	// the machine of the side without them (its recorded environment),
	// what it shows mitigated and the model of the kernel's decision
	// (mitigation.Knowledge.Predict) says they turn off; for a side
	// without an environment (a published baseline), every file the
	// parameter table names, and for mitigations= with attack vectors
	// turned off only those whose every attack vector is off.
	Affects []string `json:"affects"`
	// Vectors are the attack vectors mitigations= turns off
	// (guest_host, guest_guest); Narrowed the common names of the
	// vulnerabilities that keep protection on their other vectors.
	Vectors  []string `json:"vectors,omitempty"`
	Narrowed []string `json:"narrowed,omitempty"`
}

// offToken reports whether a mitigation parameter switches protection off
// or weakens it (mitigations=off, nopti, spectre_v2=off, tsx=on), as the
// mitigation package's parameter table says.
func offToken(t string) bool { return mitigation.TurnsOff(t) }

// workloadTags maps a workload id to the knowledge base's tag of the main
// kernel path it stresses, as the workload declares it.
var workloadTags = workload.MainPaths()

// workloadPays maps a workload id to the workload's own line on what it
// pays for (file-churn pays entry and exit six times a file, not "on every
// syscall" as its path's tag says).
var workloadPays = workload.Pays()

// stresses returns the knowledge-base tag of what a workload stresses, ""
// when unknown.
func stresses(workloadID string) string { return workloadTags[workloadID] }

// isWSL reports whether a side ran inside WSL 2, by its recorded
// environment (sideInfo sets WSL from the runs' env snapshots or the
// baseline's environment), never by a name.
func isWSL(s SideInfo) bool { return s.WSL }

// governed are the vulnerabilities a group of mitigation parameters
// governs, by what they parse to: mitigations=off governs every file it
// names, mitigations= with attack vectors turned off only the files whose
// every vector is off (the rest are narrowed), any other parameter the
// files the parameter table names.
func governed(kb *mitigation.Knowledge, tokens []string, without *sysinfo.Snapshot) (names, narrowed, vectors []string) {
	if without != nil && len(without.Vulnerabilities) > 0 {
		return predicted(kb, tokens, without)
	}
	seen := map[string]bool{}
	add := func(l *[]string, n string) {
		if !seen[n] {
			seen[n] = true
			*l = append(*l, n)
		}
	}
	for _, t := range tokens {
		ps := mitigation.ParseCmdline(t).Params
		if len(ps) != 1 || ps[0].Key() != "mitigations" {
			more, _ := kb.AffectedBy(t)
			for _, n := range more {
				add(&names, n)
			}
			continue
		}
		g := mitigation.ParseGlobal(ps[0].Value)
		if g.Option == "off" || len(g.VectorsOff) == 0 {
			more, _ := kb.AffectedBy(t)
			for _, n := range more {
				add(&names, n)
			}
			continue
		}
		vectors = append(vectors, g.VectorsOff...)
		for _, n := range kb.VulnerabilityNames() {
			e, _ := kb.LookupVulnerability(n)
			off := 0
			for _, v := range e.Vectors {
				if slices.Contains(g.VectorsOff, v) {
					off++
				}
			}
			switch {
			case off > 0 && off == len(e.Vectors):
				add(&names, n)
			case off > 0:
				add(&narrowed, n)
			}
		}
	}
	sort.Strings(names)
	sort.Strings(narrowed)
	return names, narrowed, vectors
}

// predicted are the vulnerabilities a group of parameters governs on the
// machine of the side that lacks them, as the one model of the kernel's
// decision (mitigation.Knowledge.Predict, the model advise and the boot
// verifiers ask) says: the files the parameters turn off there (names),
// those where they turn only a part off (narrowed), and the attack vectors
// a mitigations=auto,no_… among them turns off.
func predicted(kb *mitigation.Knowledge, tokens []string, without *sysinfo.Snapshot) (names, narrowed, vectors []string) {
	m := without.Machine()
	base := mitigation.ParseCmdline(without.Cmdline.Raw).Params
	var extra []mitigation.Param
	for _, t := range tokens {
		ps := mitigation.ParseCmdline(t).Params
		extra = append(extra, ps...)
		if len(ps) == 1 && ps[0].Key() == "mitigations" {
			if g := mitigation.ParseGlobal(ps[0].Value); g.Option != "off" {
				vectors = append(vectors, g.VectorsOff...)
			}
		}
	}
	before, after := kb.Predict(m, base), kb.Predict(m, mitigation.Merge(base, extra))
	for _, v := range without.Vulnerabilities {
		if v.State != mitigation.Mitigated {
			continue // not affected, already vulnerable or unknown there: nothing to turn off
		}
		b, a := before.Of(v.Name), after.Of(v.Name)
		switch {
		case a.Off && !b.Off:
			names = append(names, v.Name)
		case a.Partial && !b.Partial && !b.Off:
			narrowed = append(narrowed, v.Name)
		}
	}
	sort.Strings(names)
	sort.Strings(narrowed)
	return names, narrowed, vectors
}

// stateOf is a vulnerability state from the recorded state or, when absent
// (a run stored before states were recorded), the raw sysfs line read by
// its one reader, mitigation.ParseVulnerability.
func stateOf(name, state, raw string) mitigation.State {
	if state != "" {
		return mitigation.State(state)
	}
	return mitigation.ParseVulnerability(name, raw).State
}

// impact is (speedup−1)·100 and whether it is finite.
func impact(speedup float64) (float64, bool) {
	v := (speedup - 1) * 100
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// addMeaning fills rep.Meaning and the workloads' Stresses from the
// numbers and the mitigation knowledge base.
func (rep *Report) addMeaning(a, b Side) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		kb = nil
	}
	m := Meaning{Moved: []Ranked{}, Still: []Ranked{}, GaveUp: []Protection{}, Gained: []Protection{},
		Cmdline: []CmdlineChange{}, OtherParams: []string{}}
	for i := range rep.Workloads {
		if t := stresses(rep.Workloads[i].ID); t != "" && kb != nil {
			rep.Workloads[i].Stresses, rep.Workloads[i].StressesDetail = kb.TagLabel(t), kb.Tags[t]
		}
		if p := workloadPays[rep.Workloads[i].ID]; p != "" {
			rep.Workloads[i].StressesDetail = p // the workload's own words, not its path's
		}
	}
	for _, wl := range rep.Workloads {
		if wl.Control || len(wl.Metrics) == 0 {
			continue
		}
		x := wl.Metrics[0]
		v, ok := impact(x.Speedup)
		if !ok {
			continue
		}
		r := Ranked{Workload: wl.ID, Metric: x.Name, Stresses: wl.Stresses, Speedup: x.Speedup, ImpactPct: v,
			ChangePct: x.ChangePct, Verdict: x.Verdict}
		if x.Verdict == VerdictSame {
			m.Still = append(m.Still, r)
		} else {
			m.Moved = append(m.Moved, r)
		}
	}
	sort.SliceStable(m.Moved, func(i, j int) bool { return math.Abs(m.Moved[i].ImpactPct) > math.Abs(m.Moved[j].ImpactPct) })
	if kb != nil {
		for _, v := range rep.Env.Vulnerabilities {
			e, ok := kb.LookupVulnerability(v.Name)
			if !ok {
				continue
			}
			p := Protection{Vulnerability: v.Name, CommonName: e.CommonName, Threat: e.Threat}
			fv, tv := stateOf(v.Name, v.StateA, v.A), stateOf(v.Name, v.StateB, v.B)
			switch {
			case fv == mitigation.Mitigated && tv == mitigation.Vulnerable:
				m.GaveUp = append(m.GaveUp, p)
			case fv == mitigation.Vulnerable && tv == mitigation.Mitigated:
				m.Gained = append(m.Gained, p)
			}
		}
		// The machine without the parameters is the one whose lines show
		// what they would turn off: A for what B adds, B for what B drops.
		for _, side := range []struct {
			dir     string
			tokens  []string
			without *sysinfo.Snapshot
		}{{DirAdds, rep.Env.CmdlineAdded, firstEnv(a)}, {DirDrops, rep.Env.CmdlineRemoved, firstEnv(b)}} {
			var off, other []string
			for _, t := range side.tokens {
				p, ok := kb.LookupParam(t)
				switch {
				case !ok:
				case !p.Mitigation:
					if side.dir == DirAdds {
						m.OtherParams = append(m.OtherParams, t)
					}
				case offToken(t):
					off = append(off, t)
				default:
					other = append(other, t)
				}
			}
			for _, g := range []struct {
				off    bool
				tokens []string
			}{{true, off}, {false, other}} {
				if len(g.tokens) == 0 {
					continue
				}
				c := CmdlineChange{Direction: side.dir, Off: g.off, Tokens: g.tokens, Affects: []string{}}
				names, narrowed, vectors := governed(kb, g.tokens, side.without)
				for _, n := range names {
					if e, ok := kb.LookupVulnerability(n); ok {
						c.Affects = append(c.Affects, e.CommonName)
					}
				}
				for _, n := range narrowed {
					if e, ok := kb.LookupVulnerability(n); ok {
						c.Narrowed = append(c.Narrowed, e.CommonName)
					}
				}
				c.Vectors = vectors
				m.Cmdline = append(m.Cmdline, c)
			}
		}
		for _, side := range []struct {
			name string
			info SideInfo
		}{{"A", rep.A}, {"B", rep.B}} {
			if isWSL(side.info) {
				m.VMGuestSides = append(m.VMGuestSides, side.name)
			}
		}
		if len(m.VMGuestSides) > 0 {
			m.VMGuest, m.VMGuestNote = true, kb.VMGuestGeneral
		}
	}
	rep.Meaning = m
}

// firstEnv is the environment of a side's first run, nil for a published
// baseline or a run without one.
func firstEnv(s Side) *sysinfo.Snapshot {
	if len(s.Runs) == 0 || s.Runs[0] == nil {
		return nil
	}
	return s.Runs[0].Env
}

// addVulnerabilityText adds the knowledge base's explanation and one-line
// summary to each changed vulnerability.
func (d *EnvDiff) addVulnerabilityText() {
	for i, v := range d.Vulnerabilities {
		from, to := v.A, v.B
		if from == Absent {
			from = ""
		}
		if to == Absent {
			to = ""
		}
		explain := mitigation.ExplainChange(v.Name, from, to)
		if _, rest, ok := strings.Cut(explain, " — "); ok {
			explain = rest
		}
		d.Vulnerabilities[i].Explain = explain
		d.Vulnerabilities[i].OneLiner, _ = mitigation.OneLiner(v.Name)
	}
}
