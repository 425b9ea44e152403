package mitigation

import (
	"fmt"
	"slices"
	"strings"
)

// Alternatives to a blanket mitigations=off, computed for one machine:
// for each target ("only the costly ones", "everything", "keep X") the
// smallest parameter set this kernel on this CPU parses that reaches it,
// checked by running the model (Predict) forward. A parameter is offered
// only when this architecture's kernel parses it (its knowledge-base
// architectures), this kernel has it (its mainline version, or the
// vulnerability file it came with is on the machine: stable kernels got
// tsa= and indirect_target_selection= with their files) and it turns off
// a file the machine shows mitigated; nothing another vendor's CPU needs
// can qualify, since its file says "Not affected" here.

// Changeable are the files of m that show a mitigation a parameter can
// turn off on m's architecture (always-on parts left out).
func (k *Knowledge) changeableFiles(m Machine) []Vulnerability {
	var out []Vulnerability
	for _, v := range m.Vulns {
		if v.State == Mitigated && !k.AlwaysOn(m.Arch, v.Name, v.Raw) {
			out = append(out, v)
		}
	}
	return out
}

// parses reports whether the kernel of m knows the parameter.
func (k *Knowledge) parses(m Machine, kp KBParam) bool {
	if m.Arch == "" || len(kp.Arch) > 0 && !slices.Contains(kp.Arch, m.Arch) {
		return false
	}
	if kbAtLeast(m.Release, kp.Since, true) {
		return true
	}
	for _, f := range kp.Files {
		if e, ok := k.LookupVulnerability(f); ok && e.Since == kp.Since && m.Lines[f] != "" {
			return true
		}
	}
	return false
}

// offTokens are the single tokens m's kernel parses that turn file off
// (judged alone): "nopti", "spectre_v2=off", "tsa=off".
func (k *Knowledge) offTokens(m Machine, file string) []string {
	var out []string
	for _, kp := range k.Params {
		if kp.Kind != "bug" || isSubFieldOnly(kp.Key) || !slices.Contains(kp.Files, file) || !k.parses(m, kp) {
			continue
		}
		tok := ""
		for _, v := range kp.Values {
			if v.Effect == EffectOff && (tok == "" || v.Value == "off") {
				tok = kp.Key + "=" + v.Value
			}
		}
		if kp.Flag == EffectOff && tok == "" {
			tok = kp.Key
		}
		if tok == "" {
			continue
		}
		if slices.ContainsFunc(k.Targets(m, ParseCmdline(tok).Params), func(t TargetFile) bool { return t.Name == file }) {
			out = append(out, tok)
		}
	}
	return out
}

// SmallestOff is the smallest set of per-bug tokens that turns off exactly
// the files in want (and nothing else m shows mitigated), checked by the
// model forward; ok is false when none reaches it.
func (k *Knowledge) SmallestOff(m Machine, want []string) (tokens []string, ok bool) {
	if len(want) == 0 {
		return nil, false
	}
	covered := map[string]bool{}
	for {
		var best string
		bestN := 0
		for _, f := range want {
			if covered[f] {
				continue
			}
			for _, tok := range k.offTokens(m, f) {
				n, stray := 0, false
				for _, t := range k.Targets(m, ParseCmdline(tok).Params) {
					switch {
					case !slices.Contains(want, t.Name):
						stray = true
					case !covered[t.Name]:
						n++
					}
				}
				if !stray && (n > bestN || n == bestN && n > 0 && (len(tok) < len(best) || len(tok) == len(best) && tok < best)) {
					best, bestN = tok, n
				}
			}
		}
		if best == "" {
			break
		}
		tokens = append(tokens, best)
		for _, t := range k.Targets(m, ParseCmdline(best).Params) {
			covered[t.Name] = true
		}
	}
	off := k.ExpectedOff(m, ParseCmdline(strings.Join(tokens, " ")).Params)
	slices.Sort(off)
	w := slices.Clone(want)
	slices.Sort(w)
	return tokens, len(tokens) > 0 && slices.Equal(off, w)
}

// withVERW adds every mitigated VERW user of m to want when want has one:
// the shared clear goes away only when all of them are off (RuleVERW).
func withVERW(m Machine, files []Vulnerability, want []string) []string {
	if !slices.ContainsFunc(want, func(n string) bool { return VERWUsers[n] }) {
		return want
	}
	for _, v := range files {
		if VERWUsers[v.Name] && !slices.Contains(want, v.Name) {
			want = append(want, v.Name)
		}
	}
	return want
}

// ComputedAlternatives are the alternatives to mitigations=off for m,
// each reached by the smallest parameter set and checked by the model:
// only the costly protections off; everything off where mitigations=off
// does not reach it (a kernel without the global switch, an architecture
// whose kernel does not parse it); mitigations=off keeping one cheap
// protection where this kernel lets a per-bug value override it.
func (k *Knowledge) ComputedAlternatives(m Machine) []KBAlternative {
	files := k.changeableFiles(m)
	if len(files) == 0 {
		return nil
	}
	var all, costly []string
	for _, v := range files {
		all = append(all, v.Name)
		if mode, ok := k.ModeOf(v.Name, v.Raw); ok && (mode.Cost == "high" || mode.Cost == "medium") {
			costly = append(costly, v.Name)
		}
	}
	costly = withVERW(m, files, costly)
	var out []KBAlternative
	if len(costly) > 0 && len(costly) < len(all) {
		if toks, ok := k.SmallestOff(m, costly); ok {
			out = append(out, k.computed(m, "computed-costly-off", "Turn off only the costly mitigations on this machine, keep the cheap ones", toks))
		}
	}
	globalOff := k.ExpectedOff(m, ParseCmdline("mitigations=off").Params)
	if len(globalOff) < len(all) {
		if toks, ok := k.SmallestOff(m, all); ok {
			out = append(out, k.computed(m, "computed-everything-off", "Turn off every mitigation this machine shows, one parameter per protection (mitigations=off does not reach them all here)", toks))
		}
	}
	for _, v := range files {
		if !slices.Contains(globalOff, v.Name) {
			continue
		}
		mode, ok := k.ModeOf(v.Name, v.Raw)
		if !ok || mode.Cost != "none" && mode.Cost != "low" || hasSubFields(k, v.Name) {
			// A line with sub-fields (spectre_v2's STIBP, IBPB, BHI) would
			// keep its prefix but lose parts the other AUTO choices made.
			continue
		}
		tok := k.keepToken(m, v.Name, mode.Name)
		if tok == "" {
			continue
		}
		toks := []string{"mitigations=off", tok}
		want := slices.DeleteFunc(slices.Clone(globalOff), func(n string) bool { return n == v.Name })
		off := k.ExpectedOff(m, ParseCmdline(strings.Join(toks, " ")).Params)
		slices.Sort(off)
		slices.Sort(want)
		if slices.Equal(off, want) {
			out = append(out, k.computed(m, "computed-keep-"+v.Name, fmt.Sprintf("mitigations=off but keep %s (%s, cost %s)", v.Name, strings.TrimSpace(v.Raw), mode.Cost), toks))
		}
	}
	return out
}

// keepToken is the explicit per-bug value that selects the mode the file
// shows now ("spec_store_bypass_disable=prctl"), "" when there is none or
// it defers to the default (RuleDefers).
func (k *Knowledge) keepToken(m Machine, file, mode string) string {
	for _, kp := range k.Params {
		if kp.Kind != "bug" || isSubFieldOnly(kp.Key) || !slices.Contains(kp.Files, file) || !k.parses(m, kp) {
			continue
		}
		for _, v := range kp.Values {
			p := Param{Name: kp.Key, Value: v.Value, HasValue: true, Raw: kp.Key + "=" + v.Value}
			if v.Value == mode && v.Effect != EffectOff && !k.Defers(p) {
				return p.Raw
			}
		}
	}
	return ""
}

// computed lays out one computed alternative: what it gives up and keeps
// here, by the model.
func (k *Knowledge) computed(m Machine, id, title string, tokens []string) KBAlternative {
	a := KBAlternative{ID: id, Target: "off", Title: title, Params: strings.Join(tokens, " "), Verified: true}
	k.Describe(m, &a)
	var cost []string
	for _, n := range a.GivesUp {
		if mode, ok := k.ModeOf(n, m.Lines[n]); ok {
			cost = append(cost, fmt.Sprintf("%s (%s, cost %s)", n, mode.Name, mode.Cost))
		}
	}
	a.Why = fmt.Sprintf("Computed for this machine (%s, kernel %s) and checked with the model of the kernel's decision: it turns off %s", orUnknownArch(m.Arch), m.Release, strings.Join(cost, ", "))
	if len(a.Keeps) > 0 {
		a.Why += "; keeps " + strings.Join(a.Keeps, ", ")
	}
	a.Why += "."
	return a
}

// Describe fills an alternative's GivesUp, Weakens, Keeps and Saves for
// m from the model's per-file answer (Outcome, the classes advise
// --target of the same line gives): the files m shows mitigated that its
// parameters turn off, those they leave mitigated with a part off, the
// changeable ones they leave whole, and the workload taxes of those given
// up or weakened.
func (k *Knowledge) Describe(m Machine, a *KBAlternative) {
	o := k.Outcome(m, ParseCmdline(a.Params).Params)
	a.GivesUp, a.Weakens, a.Keeps, a.Saves = o.GivenUp, o.Weakened, []string{}, []string{}
	if len(a.Weakens) == 0 {
		a.Weakens = nil
	}
	for _, n := range slices.Concat(o.GivenUp, o.Weakened) {
		e, _ := k.LookupVulnerability(n)
		for _, t := range e.Taxes {
			if !slices.Contains(a.Saves, t) {
				a.Saves = append(a.Saves, t)
			}
		}
	}
	for _, v := range k.changeableFiles(m) {
		if !slices.Contains(o.GivenUp, v.Name) && !slices.Contains(o.Weakened, v.Name) {
			a.Keeps = append(a.Keeps, v.Name)
		}
	}
}

// hasSubFields reports whether parameters of their own change parts of
// the file after ';' (spectre_v2_user=, spectre_bhi= for spectre_v2).
func hasSubFields(k *Knowledge, file string) bool {
	for key := range subFieldOnly {
		if kp, ok := k.lookupParam(key); ok && slices.Contains(kp.Files, file) {
			return true
		}
	}
	return false
}
