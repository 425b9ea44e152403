package mitigation

// What a vulnerability line means: its mode, its verdict, whether the
// command line can change it, and the plain sentence that explains a
// change (split from knowledge.go).

import (
	"fmt"
	"slices"
	"strings"
)

// OneLiner returns the short explanation shown beside a vulnerability in
// `sectax env` and text reports: common name, what is at stake, and which
// measured paths its mitigation taxes. Unknown names give a hint and
// ok=false.
func (k *Knowledge) OneLiner(name string) (string, bool) {
	e, ok := k.LookupVulnerability(name)
	if !ok {
		return "no knowledge-base entry (a bug newer than this sectax?)", false
	}
	return fmt.Sprintf("%s: %s; %s", e.CommonName, e.Threat, k.costPhrase(e)), true
}

// ModeOf returns the mode whose sysfs text best matches a raw line of the
// named vulnerability file (the longest matching prefix), or ok=false.
func (k *Knowledge) ModeOf(name, raw string) (KBMode, bool) {
	e, ok := k.LookupVulnerability(name)
	if !ok {
		return KBMode{}, false
	}
	return kbMainMode(e, raw)
}

func kbMainMode(e KBEntry, raw string) (KBMode, bool) {
	raw = strings.TrimSpace(raw)
	best, found := KBMode{}, false
	bestLen := 0
	for _, m := range e.Modes {
		for _, text := range append([]string{m.Sysfs}, m.Also...) {
			if strings.HasPrefix(raw, text) && (!found || len(text) > bestLen) {
				best, found, bestLen = m, true, len(text)
			}
		}
	}
	return best, found
}

// Changeable reports whether the kernel command line can change what a
// vulnerability file shows on an architecture: false for "Not affected",
// and for a mode the knowledge base marks fixed there (arm64's
// "__user pointer sanitization", s390's etokens, x86's bare PTE
// inversion, a missing microcode), unless the line has a part that a
// parameter does change (l1tf's "; VMX: …"). A line the knowledge base
// does not know counts as changeable.
func (k *Knowledge) Changeable(arch, name, raw string) bool {
	raw = strings.TrimSpace(raw)
	if kbVerdict(raw) == "not_affected" {
		return false
	}
	m, ok := k.ModeOf(name, raw)
	if !ok || !m.FixedOn(arch) {
		return true
	}
	for _, u := range m.Unless {
		if strings.Contains(raw, u) {
			return true
		}
	}
	return false
}

// kbSubModes returns the modes that appear as "; KEY: value" sub-fields of
// a raw line (spectre_v2's "IBPB: conditional", l1tf's "VMX: vulnerable").
func kbSubModes(e KBEntry, raw string) []KBMode {
	var out []KBMode
	for _, m := range e.Modes {
		if strings.Contains(m.Sysfs, ": ") && strings.Contains(raw, "; "+m.Sysfs) {
			out = append(out, m)
		}
	}
	return out
}

// kbSubModeChange describes the sub-field modes that went away and came
// up between two lines ("VMX: conditional cache flushes (medium) → VMX:
// vulnerable (none)"), or "" when none changed.
func kbSubModeChange(e KBEntry, from, to string) string {
	fs, ts := kbSubModes(e, from), kbSubModes(e, to)
	var gone, came []string
	sameName := func(l []KBMode, m KBMode) bool {
		return slices.ContainsFunc(l, func(x KBMode) bool { return x.Name == m.Name })
	}
	for _, m := range fs {
		if !sameName(ts, m) {
			gone = append(gone, fmt.Sprintf("%s (cost %s)", m.Sysfs, m.Cost))
		}
	}
	for _, m := range ts {
		if !sameName(fs, m) {
			came = append(came, fmt.Sprintf("%s (cost %s)", m.Sysfs, m.Cost))
		}
	}
	if len(gone) == 0 && len(came) == 0 {
		return ""
	}
	show := func(l []string) string {
		if len(l) == 0 {
			return "nothing"
		}
		return strings.Join(l, ", ")
	}
	return show(gone) + " → " + show(came)
}

// kbVerdict classifies a vulnerability line (or a state name) as
// not_affected, mitigated, vulnerable or unknown, by the prefixes bugs.c
// prints (see ParseVulnerability).
func kbVerdict(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "KVM: ")
	switch {
	case s == "not_affected" || strings.HasPrefix(s, "Not affected"):
		return "not_affected"
	case strings.HasPrefix(s, "Mitigation: Vulnerable"):
		// indirect_target_selection=vmexit (see ParseVulnerability)
		return "vulnerable"
	case s == "mitigated" || strings.HasPrefix(s, "Mitigation"):
		return "mitigated"
	case s == "vulnerable" || strings.HasPrefix(s, "Vulnerable") || strings.HasPrefix(s, "Processor vulnerable"):
		return "vulnerable"
	default:
		return "unknown"
	}
}

// ExplainChange returns one plain sentence that explains how a
// vulnerability file changed between two sides of a comparison, e.g.
// "meltdown: Mitigation: PTI → Vulnerable — protection given up: local
// code could read kernel memory; mitigation costs entry/exit, context
// switches".
// from and to are the raw sysfs lines (or the state names not_affected,
// mitigated, vulnerable, unknown); an empty side means the file is absent.
func (k *Knowledge) ExplainChange(name, from, to string) string {
	name, from, to = kbOneLine(name), kbOneLine(from), kbOneLine(to)
	head := fmt.Sprintf("%s: %s → %s", name, kbShow(from), kbShow(to))
	if from == to {
		return head + " — unchanged"
	}
	e, ok := k.LookupVulnerability(name)
	if !ok {
		return head + " — no knowledge-base entry for this file (a bug newer than this sectax?); see the kernel's Documentation/admin-guide/hw-vuln/"
	}
	if from == "" || to == "" {
		return head + " — the file exists on one side only (a different kernel version)"
	}
	fv, tv := kbVerdict(from), kbVerdict(to)
	cost := k.costPhrase(e)
	switch {
	case fv == "mitigated" && tv == "vulnerable":
		return fmt.Sprintf("%s — protection given up: %s; %s", head, e.Threat, cost)
	case fv == "vulnerable" && tv == "mitigated":
		return fmt.Sprintf("%s — protection gained (at stake: %s); %s", head, e.Threat, cost)
	case fv == "mitigated" && tv == "mitigated":
		fm, fok := kbMainMode(e, from)
		tm, tok := kbMainMode(e, to)
		how := "details changed"
		if fok && tok && fm.Name != tm.Name {
			how = fmt.Sprintf("by another method (cost %s → %s)", fm.Cost, tm.Cost)
		}
		if sub := kbSubModeChange(e, from, to); sub != "" {
			how += "; " + sub
		}
		return fmt.Sprintf("%s — still mitigated, %s; %s", head, how, cost)
	case fv == "vulnerable" && tv == "vulnerable":
		return head + " — still vulnerable, details changed"
	case fv == "not_affected" && tv == "not_affected":
		return head + " — not affected on either side"
	case fv == "not_affected" || tv == "not_affected":
		return head + " — the kernel judges the CPU differently (another CPU, microcode or hypervisor, or a forcing parameter such as pti=on)"
	default:
		return fmt.Sprintf("%s — state unknown on one side (a VM guest often cannot see the host's state); at stake: %s", head, e.Threat)
	}
}

// kbOneLine trims a sysfs line and folds any line breaks, so that a
// sentence stays one line whatever the input.
func kbOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func kbShow(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}
