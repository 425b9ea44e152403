package mitigation

// Validate: the knowledge base's completeness and consistency checks, and
// the lookup indexes built while checking (split from knowledge.go).

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

var kbNameRE = regexp.MustCompile(`^[a-z0-9_]+$`)
var kbParamKeyRE = regexp.MustCompile(`^[a-z0-9_.]+$`)

// Validate checks the knowledge base for completeness and consistency and
// builds its lookup indexes. It reports every problem, joined.
func (k *Knowledge) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("knowledge base: "+format, args...)) }

	if k.Schema != KnowledgeSchema {
		bad("schema %q, want %q", k.Schema, KnowledgeSchema)
	}
	for _, t := range KBTags {
		if k.Tags[t] == "" || k.TagLabels[t] == "" {
			bad("tag %q lacks a description or label", t)
		}
	}
	for t := range k.Tags {
		if !slices.Contains(KBTags, t) {
			bad("tag %q is not one of %v", t, KBTags)
		}
	}
	for t := range k.TagLabels {
		if !slices.Contains(KBTags, t) {
			bad("tag label %q is not one of %v", t, KBTags)
		}
	}
	for v, who := range k.AttackVectors {
		for _, w := range who {
			if k.Attackers[w] == "" {
				bad("attack vector %s: unknown attacker %q", v, w)
			}
		}
	}
	if k.VMGuestGeneral == "" || k.WSLGeneral == "" {
		bad("vm_guest_general and wsl_general are required")
	}
	ruleIDs := map[string]bool{}
	for _, r := range k.Precedence {
		if r.ID == "" || r.Rule == "" || len(r.Sources) == 0 {
			bad("precedence rule %q needs id, rule and sources", r.ID)
		}
		if ruleIDs[r.ID] {
			bad("duplicate precedence rule %q", r.ID)
		}
		ruleIDs[r.ID] = true
		for _, v := range []string{r.Since, r.Until} {
			if _, _, ok := kbKernelVersion(v); v != "" && !ok {
				bad("precedence rule %s: bad kernel version %q", r.ID, v)
			}
		}
	}

	k.vulnIndex = map[string]int{}
	for i, e := range k.Vulnerabilities {
		if !kbNameRE.MatchString(e.Name) {
			bad("vulnerability %d: bad name %q", i, e.Name)
		}
		if _, dup := k.vulnIndex[e.Name]; dup {
			bad("duplicate vulnerability %q", e.Name)
		}
		k.vulnIndex[e.Name] = i
	}
	k.paramIndex = map[string]int{}
	for i, p := range k.Params {
		if !kbParamKeyRE.MatchString(p.Key) {
			bad("parameter %d: bad key %q", i, p.Key)
		}
		if _, dup := k.paramIndex[p.Key]; dup {
			bad("duplicate parameter %q", p.Key)
		}
		k.paramIndex[p.Key] = i
	}

	for _, e := range k.Vulnerabilities {
		for _, f := range e.GuestFacts {
			if f.When == "" || f.Text == "" {
				bad("vulnerability %s: a guest fact needs when and text", e.Name)
			}
		}
		where := "vulnerability " + e.Name
		for _, a := range e.VMGuestArch {
			if !slices.Contains(e.Arch, a) {
				bad("%s: vm_guest_arch %q is not one of its arch %v", where, a, e.Arch)
			}
		}
		for field, v := range map[string]string{"common_name": e.CommonName, "summary": e.Summary,
			"threat": e.Threat, "vm_guest": e.VMGuest, "wsl": e.WSL, "cost_note": e.CostNote} {
			if strings.TrimSpace(v) == "" {
				bad("%s: %s is empty", where, field)
			}
			if strings.ContainsAny(v, "\n\r") {
				bad("%s: %s is not one line", where, field)
			}
		}
		if len(e.Who) == 0 {
			bad("%s: who is empty", where)
		}
		for _, w := range e.Who {
			if k.Attackers[w] == "" {
				bad("%s: unknown attacker %q", where, w)
			}
		}
		for _, v := range e.Vectors {
			if _, ok := k.AttackVectors[v]; !ok {
				bad("%s: unknown attack vector %q", where, v)
			}
		}
		for _, t := range e.Taxes {
			if !slices.Contains(KBTags, t) {
				bad("%s: tag %q is not one of %v", where, t, KBTags)
			}
		}
		if len(e.Modes) == 0 {
			bad("%s: no modes", where)
		}
		modeNames := map[string]bool{}
		for _, m := range e.Modes {
			if m.Name == "" || m.Sysfs == "" {
				bad("%s: a mode lacks name or sysfs text", where)
			}
			if modeNames[m.Name] {
				bad("%s: duplicate mode %q", where, m.Name)
			}
			modeNames[m.Name] = true
			if !slices.Contains(kbCosts, m.Cost) {
				bad("%s: mode %s: cost %q is not one of %v", where, m.Name, m.Cost, kbCosts)
			}
		}
		for _, p := range e.Params {
			if _, ok := k.paramIndex[p]; !ok {
				bad("%s: unknown parameter %q", where, p)
			}
		}
		if len(e.Sources) == 0 {
			bad("%s: no sources", where)
		}
		if _, _, ok := kbKernelVersion(e.Since); e.Since != "" && !ok {
			bad("%s: bad since %q", where, e.Since)
		}
		errs = append(errs, kbCheckVerified(where, e.Verified, e.Unverified, kbEntryFields)...)
	}

	for _, p := range k.Params {
		where := "parameter " + p.Key
		if strings.TrimSpace(p.Summary) == "" || p.Syntax == "" {
			bad("%s: summary and syntax are required", where)
		}
		if !slices.Contains(kbParamKinds, p.Kind) {
			bad("%s: kind %q is not one of %v", where, p.Kind, kbParamKinds)
		}
		if p.Mitigation == (p.Kind == "toggle" || p.Kind == "hardening") {
			bad("%s: kind %s but mitigation=%v", where, p.Kind, p.Mitigation)
		}
		if !p.Mitigation {
			if !strings.HasPrefix(p.Summary, "NOT a CPU mitigation") {
				bad("%s: a toggle's summary must start with %q", where, "NOT a CPU mitigation")
			}
			if p.Measurement == "" {
				bad("%s: a toggle must say whether it can affect the measurements", where)
			}
			if len(p.Affects) > 0 {
				bad("%s: a toggle cannot affect vulnerabilities", where)
			}
		}
		for _, a := range p.Affects {
			if _, ok := k.vulnIndex[a]; !ok {
				bad("%s: affects unknown vulnerability %q", where, a)
			}
		}
		seen := map[string]bool{}
		for _, v := range p.Values {
			if v.Value == "" || v.Meaning == "" || seen[v.Value] {
				bad("%s: value %q is empty, unexplained or repeated", where, v.Value)
			}
			seen[v.Value] = true
			// The classifier reads every value of a per-bug, SMT or
			// related parameter by its effect (mitigations= has its own
			// parser); other kinds carry none.
			classified := p.Mitigation && p.Kind != "global"
			if classified != (v.Effect != "") || v.Effect != "" && !slices.Contains(kbEffects, v.Effect) {
				bad("%s: value %q: effect %q (one of %v is required exactly for per-bug, smt and related parameters)", where, v.Value, v.Effect, kbEffects)
			}
		}
		if p.Flag != "" && !slices.Contains(kbEffects, p.Flag) {
			bad("%s: flag effect %q is not one of %v", where, p.Flag, kbEffects)
		}
		if p.Other != "" && !slices.Contains(kbEffects, p.Other) {
			bad("%s: other effect %q is not one of %v", where, p.Other, kbEffects)
		}
		if b := p.KStrToBool; b != nil && (!slices.Contains(kbEffects, b.True) || !slices.Contains(kbEffects, b.False)) {
			bad("%s: kstrtobool effects %q/%q must be among %v", where, b.True, b.False, kbEffects)
		}
		if p.Mitigation && p.Kind != "global" && p.Flag == "" && len(p.Values) == 0 && p.KStrToBool == nil {
			bad("%s: a mitigation parameter needs values or a flag effect", where)
		}
		for _, f := range p.Files {
			if !slices.Contains(p.Affects, f) {
				bad("%s: files names %q, which affects does not", where, f)
			}
		}
		if p.Equivalent != "" {
			if _, ok := k.lookupParam(p.Equivalent); !ok {
				bad("%s: equivalent %q names no known parameter", where, p.Equivalent)
			}
		}
		if len(p.Sources) == 0 {
			bad("%s: no sources", where)
		}
		for _, d := range p.Defers {
			if d != "*" && !slices.ContainsFunc(p.Values, func(v KBVal) bool { return v.Value == d }) {
				bad("%s: defers names %q, not one of its values", where, d)
			}
		}
		for _, v := range []string{p.Since, p.VectorsSince, p.OverridesOffSince} {
			if _, _, ok := kbKernelVersion(v); v != "" && !ok {
				bad("%s: bad kernel version %q", where, v)
			}
		}
		errs = append(errs, kbCheckVerified(where, p.Verified, p.Unverified, kbParamFields)...)
	}

	// A parameter that affects a vulnerability is listed in that
	// vulnerability's params, and the other way round.
	for _, p := range k.Params {
		for _, a := range p.Affects {
			if i, ok := k.vulnIndex[a]; ok && !slices.Contains(k.Vulnerabilities[i].Params, p.Key) {
				bad("parameter %s affects %s, but %s does not list it in params", p.Key, a, a)
			}
		}
	}
	for _, e := range k.Vulnerabilities {
		for _, key := range e.Params {
			if i, ok := k.paramIndex[key]; ok && !slices.Contains(k.Params[i].Affects, e.Name) {
				bad("vulnerability %s lists parameter %s, whose affects does not name it", e.Name, key)
			}
		}
	}

	altIDs := map[string]bool{}
	for _, a := range k.Alternatives {
		where := "alternative " + a.ID
		if a.ID == "" || altIDs[a.ID] {
			bad("%s: empty or duplicate id", where)
		}
		altIDs[a.ID] = true
		if a.Target == "" || a.Title == "" || a.Params == "" || a.Why == "" {
			bad("%s: target, title, params and why are required", where)
		}
		for _, tok := range strings.Fields(a.Params) {
			if _, ok := k.lookupParam(tok); !ok {
				bad("%s: parameter %q is not in the knowledge base", where, tok)
			}
		}
		for _, n := range slices.Concat(a.Keeps, a.GivesUp) {
			if _, ok := k.vulnIndex[n]; !ok {
				bad("%s: unknown vulnerability %q", where, n)
			}
		}
		for _, n := range a.Keeps {
			if slices.Contains(a.GivesUp, n) {
				bad("%s: %s is both kept and given up", where, n)
			}
		}
		for _, t := range a.Saves {
			if !slices.Contains(KBTags, t) {
				bad("%s: tag %q is not one of %v", where, t, KBTags)
			}
		}
		if _, _, ok := kbKernelVersion(a.MinKernel); a.MinKernel != "" && !ok {
			bad("%s: bad min_kernel %q", where, a.MinKernel)
		}
		errs = append(errs, a.Applicability.validate(where, k.vulnIndex)...)
		errs = append(errs, kbCheckVerified(where, a.Verified, a.Unverified, kbAltFields)...)
	}
	return errors.Join(errs...)
}

// kbCheckVerified checks that verified is false exactly when some fields
// are listed as unverified, and that those fields exist.
func kbCheckVerified(where string, verified bool, unverified, allowed []string) []error {
	var errs []error
	if verified == (len(unverified) > 0) {
		errs = append(errs, fmt.Errorf("knowledge base: %s: verified=%v but unverified lists %v", where, verified, unverified))
	}
	for _, f := range unverified {
		if !slices.Contains(allowed, f) {
			errs = append(errs, fmt.Errorf("knowledge base: %s: unverified names unknown field %q", where, f))
		}
	}
	return errs
}
