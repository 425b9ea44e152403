package mitigation

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Kind says why a command-line parameter matters to sectax.
type Kind string

// The kinds of mitigation-relevant parameters.
const (
	// KindGlobal is mitigations=, the global switch.
	KindGlobal Kind = "global"
	// KindBug is a per-bug parameter (pti=, spectre_v2=, mds=, …).
	KindBug Kind = "bug"
	// KindSMT is nosmt / nosmt=force.
	KindSMT Kind = "smt"
	// KindToggle is a parameter that is no speculation mitigation but that
	// the study changes with it: audit, vsyscall, quiet, loglevel, debug.
	KindToggle Kind = "toggle"
)

// Effect is what a parameter does to the mitigations it controls.
type Effect string

// The effects of a mitigation-relevant parameter.
const (
	// EffectOff turns a mitigation off or weakens it.
	EffectOff Effect = "off"
	// EffectOn forces a mitigation on or strengthens it (e.g. adds nosmt).
	EffectOn Effect = "on"
	// EffectSelect picks one method among several.
	EffectSelect Effect = "select"
	// EffectDefault writes out the value the kernel uses anyway
	// (spectre_v2=auto, spec_store_bypass_disable=prctl).
	EffectDefault Effect = "default"
	// EffectInvalid is a value the kernel does not accept.
	EffectInvalid Effect = "invalid"
	// EffectNone is for toggles, which are not mitigations.
	EffectNone Effect = ""
)

// Relevant is a mitigation-relevant parameter with its classification.
type Relevant struct {
	Param
	Kind   Kind   `json:"kind"`
	Effect Effect `json:"effect,omitempty"`
	// Files are the /sys/devices/system/cpu/vulnerabilities/ files whose
	// text the parameter changes.
	Files []string `json:"files,omitempty"`
	// Overridden is true when a later copy of the same setting wins.
	Overridden bool `json:"overridden,omitempty"`
	// Note is a short plain-language remark (for toggles: what it does).
	Note string `json:"note,omitempty"`
}

// Global is the parsed value of mitigations=.
type Global struct {
	// Value is the raw value ("auto,no_guest_host,no_guest_guest").
	Value string `json:"value"`
	// Option is the global option: "off" or "auto" (an empty option, as in
	// "mitigations=,no_cross_thread", means auto). "" if Invalid says the
	// whole value is unusable.
	Option string `json:"option"`
	// NoSMT is true for "auto,nosmt".
	NoSMT bool `json:"nosmt,omitempty"`
	// VectorsOff are the attack vectors turned off (Linux 6.17+):
	// user_kernel, user_user, guest_host, guest_guest, cross_thread.
	VectorsOff []string `json:"vectors_off,omitempty"`
	// Invalid are the parts the kernel would reject ("Unsupported
	// mitigations=…").
	Invalid []string `json:"invalid,omitempty"`
	// Unsupported names the architecture whose kernel rejects the whole
	// value and keeps the default: the attack-vector controls exist on x86
	// only (see Mitigations.ForArch).
	Unsupported string `json:"unsupported,omitempty"`
}

// Mitigations is the mitigation-relevant part of a command line: the
// `cmdline.mitigations` object of `sectax env --format json`.
type Mitigations struct {
	// Global is the effective (last) mitigations=, nil when there is none.
	Global *Global `json:"global"`
	// Params are all relevant parameters in command-line order, repeated
	// ones included (the earlier copies marked Overridden).
	Params []Relevant `json:"params"`
}

// Vectors are the attack-vector names of mitigations= (Linux 6.17+), each
// written "no_<vector>" to turn it off.
var Vectors = []string{"user_kernel", "user_user", "guest_host", "guest_guest", "cross_thread"}

// ParseGlobal parses the value of mitigations= as the kernel's
// mitigations_parse_cmdline() does: a global option ("off", "auto,nosmt",
// "auto" or nothing) then ",no_<vector>" items.
func ParseGlobal(value string) Global {
	g := Global{Value: value}
	rest := value
	switch {
	case strings.HasPrefix(rest, "off"):
		g.Option, rest = "off", rest[len("off"):]
	case strings.HasPrefix(rest, "auto,nosmt"):
		g.Option, g.NoSMT, rest = "auto", true, rest[len("auto,nosmt"):]
	case strings.HasPrefix(rest, "auto"):
		g.Option, rest = "auto", rest[len("auto"):]
	default:
		g.Option = "auto" // an empty global option means auto
	}
	if rest == "" {
		if value == "" {
			g.Invalid = []string{""}
			g.Option = ""
		}
		return g
	}
	if !strings.HasPrefix(rest, ",") {
		g.Invalid = []string{value}
		g.Option = ""
		return g
	}
	for _, s := range strings.Split(rest[1:], ",") {
		v, ok := strings.CutPrefix(s, "no_")
		if !ok || !slices.Contains(Vectors, v) {
			g.Invalid = append(g.Invalid, s)
			continue
		}
		if !slices.Contains(g.VectorsOff, v) {
			g.VectorsOff = append(g.VectorsOff, v)
		}
	}
	if g.Option == "off" {
		// off turns every vector off; listing them again changes nothing.
		g.VectorsOff = nil
	}
	return g
}

// paramInfo is how the classifier reads one per-bug parameter (or nosmt,
// or tsx=): built from the knowledge base's parameter entries, which are
// the one table of which parameters are mitigation parameters and which
// values turn one off.
type paramInfo struct {
	// kind is the knowledge base's kind (bug, smt, related).
	kind string
	// files are the sysfs vulnerability files the parameter changes.
	files []string
	// flag is the effect of the parameter written without a value
	// (nopti, nospectre_v2, nosmt).
	flag Effect
	// values maps every accepted value to its effect; with anyValue, other
	// values are accepted too (and read as the flag).
	values   map[string]Effect
	anyValue bool
	// other is the effect of an accepted value not listed (srbds=on).
	other Effect
	// kbool are the effects of kstrtobool spellings (kpti=yes).
	kbool *KBBool
	arm64 bool
}

// paramTable is the classifier's view of the knowledge base, keyed by
// Param.Key(): every mitigation parameter except mitigations=.
var paramTable = sync.OnceValue(func() map[string]paramInfo {
	kb := mustKnowledge()
	out := map[string]paramInfo{}
	for _, p := range kb.Params {
		if !p.Mitigation || p.Kind == "global" {
			continue
		}
		info := paramInfo{kind: p.Kind, files: slices.Clone(p.Files), flag: p.Flag, anyValue: p.AnyValue,
			values: map[string]Effect{}, other: p.Other, kbool: p.KStrToBool, arm64: slices.Equal(p.Arch, []string{"arm64"})}
		for _, v := range p.Values {
			info.values[v.Value] = v.Effect
		}
		out[p.Key] = info
	}
	return out
})

// mustKnowledge is the embedded knowledge base; it cannot fail once its
// tests pass, so a failure is a broken build and panics.
func mustKnowledge() *Knowledge {
	kb, err := KnowledgeBase()
	if err != nil {
		panic(err)
	}
	return kb
}

// toggleNotes explains the non-mitigation parameters the study changes.
var toggleNotes = map[string]string{
	"audit":    "audit subsystem (audit=0: off until reboot; costs per syscall only once a daemon enables rules)",
	"vsyscall": "legacy vsyscall page (hardening, not a speculation fix; WSL kernels already build it as none)",
	"quiet":    "console log level 4 (console verbosity only)",
	"loglevel": "console log level (console verbosity only)",
	"debug":    "console log level to maximum (on WSL every printk goes to the host over hvc0)",
}

// BugParams lists the keys of every mitigation parameter sectax knows
// besides mitigations= (per-bug parameters, nosmt, tsx), sorted.
func BugParams() []string {
	keys := make([]string, 0, len(paramTable()))
	for k := range paramTable() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ParamFiles returns the sysfs vulnerability files a parameter changes
// (nil when it changes none or is not a per-bug parameter).
func ParamFiles(name string) []string {
	k := Param{Name: name}.Key()
	if k == "mitigations" {
		return nil
	}
	return slices.Clone(paramTable()[k].files)
}

// Classify picks the mitigation-relevant parameters out of params.
func Classify(params []Param) Mitigations {
	m := Mitigations{Params: []Relevant{}}
	last := map[string]int{}
	for i, p := range params {
		last[p.Key()] = i
	}
	for i, p := range params {
		k := p.Key()
		r := Relevant{Param: p, Overridden: last[k] != i}
		switch {
		case k == "mitigations":
			r.Kind = KindGlobal
			g := ParseGlobal(p.Value)
			switch {
			case len(g.Invalid) > 0 || !p.HasValue:
				r.Effect = EffectInvalid
			case g.Option == "off":
				r.Effect = EffectOff
			case len(g.VectorsOff) > 0:
				r.Effect = EffectOff
			case g.NoSMT:
				r.Effect = EffectOn
			default:
				r.Effect = EffectSelect
			}
			if !r.Overridden {
				m.Global = &g
			}
		case toggleNotes[k] != "":
			r.Kind = KindToggle
			r.Note = toggleNotes[k]
		default:
			info, ok := paramTable()[k]
			if !ok {
				continue
			}
			r.Kind = KindBug
			if info.kind == "smt" {
				// nosmt=force also forbids turning SMT back on; any other
				// value is taken as plain nosmt (kernel/cpu.c
				// smt_cmdline_disable).
				r.Kind = KindSMT
			}
			r.Files = slices.Clone(info.files)
			r.Effect = info.effect(p)
			if info.arm64 {
				r.Note = "arm64 only"
			}
		}
		m.Params = append(m.Params, r)
	}
	return m
}

// effect classifies one value of a per-bug parameter.
func (info paramInfo) effect(p Param) Effect {
	if !p.HasValue {
		if info.flag != "" {
			return info.flag
		}
		return EffectInvalid
	}
	v := p.Value
	if e, ok := info.values[v]; ok {
		return e
	}
	if info.kbool != nil {
		if b, ok := KStrToBool(v); ok {
			if b {
				return info.kbool.True
			}
			return info.kbool.False
		}
	}
	if info.other != "" {
		return info.other
	}
	if info.flag != "" {
		// nopti=1: the early_param handler of a flag ignores its
		// argument, so the flag takes effect all the same.
		return info.flag
	}
	if info.anyValue {
		return EffectSelect
	}
	// Comma lists such as retbleed=auto,nosmt: every item must be accepted.
	items := strings.Split(v, ",")
	eff := EffectSelect
	for _, it := range items {
		e, ok := info.values[it]
		if !ok {
			return EffectInvalid
		}
		switch e {
		case EffectOff:
			return EffectOff
		case EffectOn:
			eff = EffectOn
		}
	}
	return eff
}

// ForArch reads the command line the way the kernel of an architecture
// does. The attack-vector controls of mitigations= (",no_guest_host" …)
// exist on x86 only (CONFIG_ARCH_HAS_CPU_ATTACK_VECTORS); on arm64,
// powerpc and s390 kernel/cpu.c accepts off, auto and auto,nosmt, logs
// "Unsupported mitigations=…" for anything else and keeps the default.
// An empty arch, or x86, changes nothing.
func (m Mitigations) ForArch(arch string) Mitigations {
	g := m.Global
	if arch == "" || arch == "x86" || g == nil || len(g.Invalid) > 0 {
		return m
	}
	switch g.Value {
	case "off", "auto", "auto,nosmt":
		return m
	}
	m.Global = &Global{Value: g.Value, Option: "auto", Unsupported: arch}
	m.Params = slices.Clone(m.Params)
	for i, r := range m.Params {
		if r.Kind == KindGlobal && !r.Overridden {
			m.Params[i].Effect = EffectSelect
			m.Params[i].Note = "attack-vector controls exist on x86 only; the " + arch + " kernel ignores this value"
		}
	}
	return m
}

// Mode is the overall mitigation setting a command line asks for.
type Mode string

// The modes env reports as mitigation_mode (docs/format.md).
const (
	// ModeOn is the kernel default (mitigations=auto, possibly with nosmt).
	ModeOn Mode = "on"
	// ModeOff is mitigations=off.
	ModeOff Mode = "off"
	// ModeCustom is anything in between: attack vectors turned off,
	// per-bug parameters that weaken, select or re-enable something.
	ModeCustom Mode = "custom"
	// ModeUnknown is a command line sectax cannot judge (mitigations= with
	// a value the kernel rejects, or no command line at all).
	ModeUnknown Mode = "unknown"
)

// Label is the short form of the global setting for a summary line: the
// effective mitigations= value, or "default" when there is none.
func (m Mitigations) Label() string {
	if m.Global == nil {
		return "default"
	}
	if m.Global.Value == "" {
		return "mitigations="
	}
	return m.Global.Value
}

// Mode derives the mode the classified parameters give, with a one-line
// reason a person can read, for a kernel of unknown release (ModeFor).
func (m Mitigations) Mode() (Mode, string) { return m.ModeFor("") }

// ModeFor is Mode on a kernel of the given release ("" when unknown). Two
// or more mitigations= tokens are not "the last wins": the kernel reads
// each in turn (FoldGlobal), and so is one with a part the kernel rejects. Before 6.17 the last token it accepts wins
// and one it does not accept (mitigations=bogus, off,bogus) changes
// nothing; from 6.17 an off clears every attack vector for good, so
// "mitigations=off mitigations=auto" leaves them off, and parsing stops at
// an unknown item. Where the release is unknown and the two readings give
// different modes, the mode is unknown and the reason says both.
func (m Mitigations) ModeFor(release string) (Mode, string) {
	var values []string
	for _, r := range m.Params {
		if r.Kind == KindGlobal && Repeats(r.Param) {
			values = append(values, r.Value)
		}
	}
	// One token is read as it is, unless the kernel rejects part of it
	// ("off,bogus": off from 6.17, the default before); one that turns
	// vectors off as well is left to mode(), since the architecture
	// decides whether those are read at all.
	if len(values) == 0 || len(values) == 1 && (m.Global == nil || len(m.Global.Invalid) == 0 || len(m.Global.VectorsOff) > 0) {
		return m.mode()
	}
	vectors := m.Global == nil || m.Global.Unsupported == ""
	read := func(since bool) (Mode, string) {
		gs := FoldGlobal(values, since, since && vectors)
		f := m
		f.Global = &Global{Value: strings.TrimPrefix(gs.By, "mitigations="), Option: "auto", NoSMT: gs.NoSMT, VectorsOff: gs.VectorsOff}
		if gs.Off {
			f.Global.Option = "off"
		}
		if len(gs.Stopped) == 0 {
			return f.mode()
		}
		// What the kernel accepted, in its own words; the vectors it
		// cleared are said by mode().
		f.Global.Value = f.Global.Option
		if gs.NoSMT {
			f.Global.Value = "auto,nosmt"
		}
		mode, why := f.mode()
		return mode, fmt.Sprintf("%s: the kernel rejects %s (\"Unsupported mitigations\"), which leaves %s", gs.By, strings.Join(gs.Stopped, ", "), why)
	}
	if release != "" {
		if _, ok := kbFullVersion(release); ok {
			return read(kbAtLeast(release, VectorControlsSince, false))
		}
	}
	newMode, newWhy := read(true)
	oldMode, oldWhy := read(false)
	if newMode == oldMode {
		return newMode, newWhy
	}
	return ModeUnknown, fmt.Sprintf("what the kernel makes of mitigations= depends on its version: Linux %s+ gives %s (%s), older kernels %s (%s)", VectorControlsSince, newMode, newWhy, oldMode, oldWhy)
}

// mode is Mode with m.Global as the one mitigations= that counts.
func (m Mitigations) mode() (Mode, string) {
	var weak, sel, strong, def, defExplicit []string
	for _, r := range m.Params {
		if r.Overridden || r.Kind == KindToggle || r.Kind == KindGlobal {
			continue
		}
		switch r.Effect {
		case EffectOff:
			weak = append(weak, r.Raw)
		case EffectOn:
			strong = append(strong, r.Raw)
		case EffectSelect:
			sel = append(sel, r.Raw)
		case EffectDefault:
			def = append(def, r.Raw)
			if r.Value != "auto" {
				// On 6.17+ an explicit method (mds=full) overrides
				// mitigations=off; "auto" follows it.
				defExplicit = append(defExplicit, r.Raw)
			}
		case EffectInvalid:
			return ModeUnknown, fmt.Sprintf("%s is not a value the kernel accepts, so what it does depends on the kernel", r.Raw)
		}
	}
	g := m.Global
	if g != nil && len(g.Invalid) > 0 {
		return ModeUnknown, fmt.Sprintf("mitigations=%s is not a value the kernel accepts (it logs \"Unsupported mitigations\"); what it then does depends on the kernel version", g.Value)
	}
	if g != nil && g.Option == "off" {
		enabling := append(append(slices.Clone(sel), strong...), defExplicit...)
		if len(enabling) == 0 {
			reason := "mitigations=" + g.Value
			if len(weak) > 0 {
				reason += " (also " + strings.Join(weak, ", ") + ")"
			}
			return ModeOff, reason
		}
		return ModeCustom, fmt.Sprintf("mitigations=off, but %s sets a mitigation again (Linux 6.17+ lets a per-bug option override mitigations=off; older kernels keep it off)", strings.Join(enabling, ", "))
	}
	base := "no mitigations= parameter: the kernel default (auto)"
	switch {
	case g != nil && g.Unsupported != "":
		base = fmt.Sprintf("mitigations=%s: attack-vector controls exist on x86 only; a %s kernel logs \"Unsupported mitigations=%s\" and keeps the default (auto)", g.Value, g.Unsupported, g.Value)
	case g != nil:
		base = "mitigations=" + g.Value
	}
	var why []string
	if g != nil && len(g.VectorsOff) > 0 {
		why = append(why, "attack vectors off: "+strings.Join(g.VectorsOff, ", "))
	}
	if len(weak) > 0 {
		why = append(why, strings.Join(weak, ", ")+" turns mitigations off")
	}
	if len(sel) > 0 {
		why = append(why, strings.Join(sel, ", ")+" chooses a method explicitly")
	}
	if len(why) > 0 {
		return ModeCustom, base + "; " + strings.Join(why, "; ")
	}
	if len(strong) > 0 {
		base += ", plus " + strings.Join(strong, ", ")
	}
	if len(def) > 0 {
		base += " (" + strings.Join(def, ", ") + " spelled out, the default)"
	}
	return ModeOn, base
}

// ModeOfCmdline is the mode of a raw command line (or PARAMS string), for
// callers that hold text: ModeOfCmdline("mitigations=off") is ModeOff.
func ModeOfCmdline(raw string) (Mode, string) {
	return Classify(ParseCmdline(raw).Params).Mode()
}

// KStrToBool reads a boolean the way the kernel's kstrtobool() does: the
// first character y, Y, t, T or 1 is true, n, N, f, F or 0 false, and
// "on"/"off" (any case of the second letter) as written; anything else is
// not a boolean.
func KStrToBool(s string) (value, ok bool) {
	if s == "" {
		return false, false
	}
	switch s[0] {
	case 'y', 'Y', 't', 'T', '1':
		return true, true
	case 'n', 'N', 'f', 'F', '0':
		return false, true
	case 'o', 'O':
		if len(s) > 1 {
			switch s[1] {
			case 'n', 'N':
				return true, true
			case 'f', 'F':
				return false, true
			}
		}
	}
	return false, false
}
