package mitigation

// The questions other packages ask about a kernel parameter. The answers
// come from one table, the parameter entries of knowledge.json, which the
// classifier reads too (paramTable): compare's "only the mitigations
// changed" guard and the report's "gives up" sentences cannot drift from
// what Classify says.

// IsMitigationParam reports whether name (a key such as "nopti", a token
// such as "spectre_v2=off", in either dash spelling) is a kernel parameter
// that controls a CPU-vulnerability mitigation: mitigations=, a per-bug
// parameter, nosmt or tsx=. The study's toggles (audit, quiet, …) and the
// hardening switches (nopku, nosmap, nosmep) are not.
func IsMitigationParam(name string) bool {
	p, ok := mustKnowledge().LookupParam(name)
	return ok && p.Mitigation
}

// IsHardeningParam reports whether name is a kernel hardening switch that
// is no vulnerability mitigation (nopku, nosmap, nosmep): security
// relevant, so a difference in it is not part of a clean mitigation
// comparison.
func IsHardeningParam(name string) bool {
	p, ok := mustKnowledge().LookupParam(name)
	return ok && p.Kind == "hardening"
}

// EffectOf is what one parameter does on its own: the effect Classify
// gives it (EffectNone for a toggle or an unknown parameter).
func EffectOf(p Param) Effect {
	m := Classify([]Param{p})
	if len(m.Params) == 0 {
		return EffectNone
	}
	return m.Params[0].Effect
}

// TurnsOff reports whether a command-line token turns a mitigation off or
// weakens it: mitigations=off, mitigations=auto,no_user_kernel, nopti,
// spectre_v2=off, tsx=on, kvm_intel.vmentry_l1d_flush=never. nosmt, which
// strengthens, does not; nor does a token of several parameters.
func TurnsOff(token string) bool {
	c := ParseCmdline(token)
	return len(c.Params) == 1 && EffectOf(c.Params[0]) == EffectOff
}
