package mitigation

// This file is the mitigation knowledge base: plain-language facts about
// every /sys/devices/system/cpu/vulnerabilities/ file and every
// mitigation-relevant kernel parameter, kept as data in knowledge.json
// (embedded) and never as prose in code. The facts come from the kernel's
// kernel-parameters.txt, hw-vuln pages and bugs.c (doc.go has the
// addresses); an entry whose "unverified" list is not empty carries fields
// written from memory, and says which.

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed knowledge.json
var knowledgeJSON []byte

// KnowledgeSchema is the schema name of knowledge.json.
const KnowledgeSchema = "sectax.knowledge/v1"

// The workload tags of the knowledge base: which kernel paths a mitigation
// taxes, named after the workloads that stress them.
const (
	TagEntryExit        = "entry-exit"        // syscall-basic
	TagContextSwitch    = "context-switch"    // sched-pipe, sched-messaging
	TagProcessLifecycle = "process-lifecycle" // spawn, builds
	TagVMExit           = "vm-exit"           // VM entry/exit
)

// KBTags are the allowed workload tags, in display order.
var KBTags = []string{TagEntryExit, TagContextSwitch, TagProcessLifecycle, TagVMExit}

// kbCosts are the allowed cost levels of a mitigation mode.
var kbCosts = []string{"none", "low", "medium", "high"}

// kbParamKinds are the allowed kinds of a parameter entry.
var kbParamKinds = []string{"global", "bug", "smt", "related", "hardening", "toggle"}

// kbEffects are the allowed effects of a parameter's value or flag.
var kbEffects = []Effect{EffectOff, EffectOn, EffectSelect, EffectDefault}

// kbEntryFields, kbParamFields and kbAltFields are the field names an
// "unverified" list may name.
var (
	kbEntryFields = []string{"common_name", "summary", "threat", "who", "vectors", "modes", "modes.cost",
		"taxes", "cost_note", "vm_guest", "wsl", "note", "params", "since", "arch", "sources"}
	kbParamFields = []string{"summary", "values", "default", "affects", "equivalent", "since",
		"precedence", "measurement"}
	kbAltFields = []string{"params", "keeps", "gives_up", "why", "saves", "min_kernel", "note"}
)

// Knowledge is the whole knowledge base (knowledge.json).
type Knowledge struct {
	Schema string `json:"schema"`
	// KernelLevel says which kernel sources the facts describe.
	KernelLevel string `json:"kernel_level"`
	// Tags maps each workload tag to what it means.
	Tags map[string]string `json:"tags"`
	// TagLabels are the short labels used in sentences ("entry/exit").
	TagLabels map[string]string `json:"tag_labels"`
	// Attackers maps each attacker kind used in KBEntry.Who to a description.
	Attackers map[string]string `json:"attackers"`
	// AttackVectors maps the mitigations= attack vectors (Linux 6.17+) to
	// the attacker kinds they stand for.
	AttackVectors map[string][]string `json:"attack_vectors"`
	// VMGuestGeneral is what holds inside any VM guest.
	VMGuestGeneral string `json:"vm_guest_general"`
	// WSLGeneral is what holds inside any WSL 2 guest.
	WSLGeneral string `json:"wsl_general"`
	// Precedence are the rules that decide which parameter wins.
	Precedence []KBRule `json:"precedence"`
	// Vulnerabilities has one entry per vulnerability file name.
	Vulnerabilities []KBEntry `json:"vulnerabilities"`
	// Params has one entry per kernel parameter (mitigations and the
	// study's non-mitigation toggles).
	Params []KBParam `json:"params"`
	// Alternatives are targeted alternatives to a blanket target such as
	// mitigations=off.
	Alternatives []KBAlternative `json:"alternatives"`

	vulnIndex  map[string]int
	paramIndex map[string]int
}

// KBRule is one precedence rule, valid from Since and/or until Until
// (kernel major.minor; empty means unbounded).
type KBRule struct {
	ID       string   `json:"id"`
	Since    string   `json:"since,omitempty"`
	Until    string   `json:"until,omitempty"`
	Rule     string   `json:"rule"`
	Sources  []string `json:"sources"`
	Verified bool     `json:"verified"`
}

// KBEntry describes one vulnerability file.
type KBEntry struct {
	// Name is the sysfs file name ("meltdown").
	Name string `json:"name"`
	// CommonName is the name people use ("Meltdown (rogue data cache load)").
	CommonName string `json:"common_name"`
	// Summary is a one-line plain-language description of the attack.
	Summary string `json:"summary"`
	// Threat is what is exposed without the mitigation, phrased to follow
	// "protection given up: " ("local code could read kernel memory").
	Threat string `json:"threat"`
	// Who are the attacker kinds (keys of Knowledge.Attackers).
	Who []string `json:"who"`
	// Vectors are the mitigations= attack vectors that keep it mitigated
	// (bugs.c should_mitigate_vuln(), Linux 6.17+).
	Vectors []string `json:"vectors"`
	// Modes are the mitigation modes and how the sysfs file shows them.
	Modes []KBMode `json:"modes"`
	// Taxes are the workload tags of the kernel paths the mitigation slows.
	Taxes []string `json:"taxes"`
	// CostNote says what the mitigation costs, with published numbers.
	CostNote string `json:"cost_note"`
	// VMGuest is what changes inside a VM guest.
	VMGuest string `json:"vm_guest"`
	// WSL is what changes inside WSL 2.
	WSL string `json:"wsl"`
	// Note is any further remark.
	Note string `json:"note,omitempty"`
	// Params are the kernel parameters (KBParam keys) that control it.
	Params []string `json:"params"`
	// Since is the mainline version that added the sysfs file.
	Since string `json:"since"`
	// Arch lists the architectures with code behind the file.
	Arch []string `json:"arch"`
	// Sources are kernel documentation paths and URLs.
	Sources []string `json:"sources"`
	// Verified is false when any field comes from memory; Unverified names
	// those fields.
	Verified   bool     `json:"verified"`
	Unverified []string `json:"unverified,omitempty"`
}

// KBMode is one mitigation mode of a vulnerability.
type KBMode struct {
	// Name is a short id ("pti", "retpoline", "off").
	Name string `json:"name"`
	// Sysfs is the text the vulnerability file shows in this mode: a
	// prefix of the line, or a "; KEY: value" sub-field.
	Sysfs string `json:"sysfs"`
	// Cost is none, low, medium or high.
	Cost string `json:"cost"`
	// Default is true for the mode a default boot picks.
	Default bool   `json:"default,omitempty"`
	Note    string `json:"note,omitempty"`
	// Also are other texts of the same mode: older or distribution
	// wordings ("Mitigation: Full retpoline", "Mitigation: safe RET").
	Also []string `json:"also,omitempty"`
	// Fixed are the architectures ("*" for all) on which no command-line
	// parameter changes this mode: arm64's unconditional "__user pointer
	// sanitization", s390's etokens, x86's PTE inversion.
	Fixed []string `json:"fixed,omitempty"`
	// Unless are sub-strings that make a Fixed line changeable after all
	// (l1tf's "; VMX: " part, powerpc's ", Software link stack flush").
	Unless []string `json:"unless,omitempty"`
	// OffReplace turns a Fixed line with a changeable part into what the
	// off switches leave of it ("VMX: conditional cache flushes" →
	// "VMX: vulnerable"; arm64 ", BHB" → ", but not BHB"); the longest
	// key is replaced first.
	OffReplace map[string]string `json:"off_replace,omitempty"`
	// KeptByOff is true for a mode that mitigations=off and the per-bug
	// off switches leave in place although another parameter can change
	// it (TSX disabled: tsx=on).
	KeptByOff bool `json:"kept_by_off,omitempty"`
	// Partial is true when the line says "Mitigation" but part of the
	// exposure is not covered (tsa "Clear CPU buffers: VM").
	Partial bool `json:"partial,omitempty"`
}

// FixedOn reports whether no command-line parameter changes the mode on
// an architecture.
func (m KBMode) FixedOn(arch string) bool {
	return slices.Contains(m.Fixed, "*") || arch != "" && slices.Contains(m.Fixed, arch)
}

// OffText is what the off switches leave of a line of this mode: the line
// with OffReplace applied (itself when nothing applies).
func (m KBMode) OffText(raw string) string {
	keys := make([]string, 0, len(m.OffReplace))
	for k := range m.OffReplace {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
	out := raw
	for _, k := range keys {
		out = strings.Replace(out, k, m.OffReplace[k], 1)
	}
	return out
}

// KBBool gives the effects of a parameter the kernel reads with
// kstrtobool (kpti=, kvm.nx_huge_pages=, nobp=): y/Y/t/T/1/on are true,
// n/N/f/F/0/off false.
type KBBool struct {
	True  Effect `json:"true"`
	False Effect `json:"false"`
}

// KBParam describes one kernel command-line parameter.
type KBParam struct {
	// Key is the parameter name without "=" ("spectre_v2", "nopti").
	Key string `json:"key"`
	// Syntax shows the accepted forms.
	Syntax string `json:"syntax"`
	// Kind is global, bug, smt, related or toggle.
	Kind string `json:"kind"`
	// Mitigation is false for the study's toggles (audit, vsyscall, quiet,
	// loglevel, debug) and for hardening switches (nopku, nosmap, nosmep),
	// which are no CPU-vulnerability mitigations.
	Mitigation bool `json:"mitigation"`
	// Flag is the effect of the parameter written without a value
	// (nopti: off, nosmt: on); "" when a bare name is not accepted.
	Flag Effect `json:"flag,omitempty"`
	// AnyValue is true when values not listed are accepted too (nosmt=X
	// is read as nosmt); otherwise an unlisted value is invalid.
	AnyValue bool `json:"any_value,omitempty"`
	// Other is the effect of a value not listed that the kernel accepts
	// all the same (srbds=: anything but off changes nothing).
	Other Effect `json:"other,omitempty"`
	// KStrToBool is set for a parameter read with kstrtobool: boolean
	// spellings not listed in Values take these effects.
	KStrToBool *KBBool `json:"kstrtobool,omitempty"`
	Summary    string  `json:"summary"`
	Values     []KBVal `json:"values"`
	Default    string  `json:"default"`
	// Affects are the vulnerability files it changes, side effects
	// included (spectre_v2= also picks the retbleed method).
	Affects []string `json:"affects"`
	// Files are the vulnerability files whose text the parameter itself
	// changes (a subset of Affects): what the classifier reports.
	Files []string `json:"files,omitempty"`
	// Equivalent is the spelled-out form ("pti=off" for nopti).
	Equivalent string `json:"equivalent"`
	Since      string `json:"since"`
	// VectorsSince is when mitigations= gained attack vectors.
	VectorsSince string   `json:"vectors_since,omitempty"`
	Arch         []string `json:"arch"`
	// Precedence says how it interacts with other parameters.
	Precedence string `json:"precedence"`
	// Measurement says whether it can affect the measurements (for toggles:
	// whether it is a confounder).
	Measurement string   `json:"measurement"`
	Sources     []string `json:"sources"`
	Verified    bool     `json:"verified"`
	Unverified  []string `json:"unverified,omitempty"`
}

// KBVal is one accepted value of a parameter.
type KBVal struct {
	Value string `json:"value"`
	// Effect is what the value does to the mitigation (off, on, select,
	// default); required for mitigation parameters, unused for others.
	Effect  Effect `json:"effect,omitempty"`
	Meaning string `json:"meaning"`
}

// KBAlternative is a targeted alternative to a blanket target: which
// protections it keeps, which it gives up, and what it saves.
type KBAlternative struct {
	ID string `json:"id"`
	// Target is the blanket target it replaces ("off").
	Target string `json:"target"`
	Title  string `json:"title"`
	// Params is the kernel command-line fragment to use instead.
	Params  string   `json:"params"`
	Keeps   []string `json:"keeps"`
	GivesUp []string `json:"gives_up"`
	Why     string   `json:"why"`
	// Saves are the workload tags whose cost it removes.
	Saves []string `json:"saves"`
	// MinKernel is the oldest kernel (major.minor) on which it works.
	MinKernel string `json:"min_kernel"`
	// Applicability is which machines it is for (Applies decides).
	Applicability KBApplies `json:"applies"`
	Note          string    `json:"note"`
	Verified      bool      `json:"verified"`
	Unverified    []string  `json:"unverified,omitempty"`
}

var kbLoad = sync.OnceValues(func() (*Knowledge, error) { return ParseKnowledge(knowledgeJSON) })

// KnowledgeBase returns the embedded knowledge base, parsed and validated
// once. An error means knowledge.json is broken (its tests fail first).
// The result is shared: treat it, and the slices in the entries it
// returns, as read-only.
func KnowledgeBase() (*Knowledge, error) { return kbLoad() }

// ParseKnowledge decodes and validates a knowledge document. Unknown
// fields are errors, so a typo in the data cannot go unnoticed.
func ParseKnowledge(data []byte) (*Knowledge, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var k Knowledge
	if err := dec.Decode(&k); err != nil {
		return nil, fmt.Errorf("knowledge base: %w", err)
	}
	if dec.More() {
		return nil, errors.New("knowledge base: trailing data after the JSON document")
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return &k, nil
}

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
		where := "vulnerability " + e.Name
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
		for _, v := range []string{p.Since, p.VectorsSince} {
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

// LookupVulnerability returns the entry for a vulnerability file name.
// Unknown names (a bug newer than this knowledge base) give ok=false.
func (k *Knowledge) LookupVulnerability(name string) (KBEntry, bool) {
	i, ok := k.vulnIndex[strings.TrimSpace(name)]
	if !ok {
		return KBEntry{}, false
	}
	return k.Vulnerabilities[i], true
}

// LookupParam returns the entry for a kernel parameter. It accepts a bare
// key ("nopti"), a key=value token ("spectre_v2=eibrs", "nosmt=force") and
// the kernel's dash spelling ("spec-store-bypass-disable"); case is
// ignored. Unknown keys give ok=false.
func (k *Knowledge) LookupParam(key string) (KBParam, bool) { return k.lookupParam(key) }

func (k *Knowledge) lookupParam(key string) (KBParam, bool) {
	name, _, _ := strings.Cut(strings.TrimSpace(key), "=")
	name = strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	i, ok := k.paramIndex[name]
	if !ok {
		return KBParam{}, false
	}
	return k.Params[i], true
}

// AffectedBy returns the vulnerability files that a list of command-line
// tokens ("mitigations=off", "nopti", "spectre_v2=retpoline") may change,
// sorted, and the tokens the knowledge base does not know. Toggles such as
// audit=0 change none. It says what may change, not in which direction:
// compare the sysfs files before and after for that.
func (k *Knowledge) AffectedBy(tokens ...string) (names, unknown []string) {
	seen := map[string]bool{}
	for _, tok := range tokens {
		p, ok := k.lookupParam(tok)
		if !ok {
			unknown = append(unknown, tok)
			continue
		}
		for _, a := range p.Affects {
			if !seen[a] {
				seen[a] = true
				names = append(names, a)
			}
		}
	}
	sort.Strings(names)
	return names, unknown
}

// Toggles returns the parameters that are not CPU mitigations but that the
// study changed with them (audit, vsyscall, quiet, loglevel, debug).
func (k *Knowledge) Toggles() []KBParam {
	var out []KBParam
	for _, p := range k.Params {
		if p.Kind == "toggle" {
			out = append(out, p)
		}
	}
	return out
}

// VulnerabilityNames returns the names of all entries, sorted.
func (k *Knowledge) VulnerabilityNames() []string {
	names := make([]string, 0, len(k.Vulnerabilities))
	for _, e := range k.Vulnerabilities {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return names
}

// TagLabel returns the short label of a workload tag ("entry/exit"), or
// the tag itself when it is unknown.
func (k *Knowledge) TagLabel(tag string) string {
	if l := k.TagLabels[tag]; l != "" {
		return l
	}
	return tag
}

// costPhrase says what the entry's mitigation costs on the measured paths.
func (k *Knowledge) costPhrase(e KBEntry) string {
	if len(e.Taxes) == 0 {
		return "mitigation costs nothing on the measured kernel paths"
	}
	labels := make([]string, len(e.Taxes))
	for i, t := range e.Taxes {
		labels[i] = k.TagLabel(t)
	}
	return "mitigation costs " + strings.Join(labels, ", ")
}

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

// AlternativesFor returns the targeted alternatives to a blanket target
// ("off") that work on the given kernel release. With a release that does
// not parse, every alternative for the target is returned; check MinKernel.
func (k *Knowledge) AlternativesFor(target, release string) []KBAlternative {
	var out []KBAlternative
	for _, a := range k.Alternatives {
		if a.Target == strings.TrimSpace(target) && a.AppliesTo(release) {
			out = append(out, a)
		}
	}
	return out
}

// AppliesTo reports whether the alternative works on a kernel release
// ("6.6.87.2-microsoft-standard-WSL2"). An unparsable release counts as
// applicable: the caller must then show MinKernel.
func (a KBAlternative) AppliesTo(release string) bool {
	return kbAtLeast(release, a.MinKernel, true)
}

// PrecedenceFor returns the precedence rules that hold for a kernel
// release; with a release that does not parse, all rules.
func (k *Knowledge) PrecedenceFor(release string) []KBRule {
	var out []KBRule
	for _, r := range k.Precedence {
		if r.Since != "" && !kbAtLeast(release, r.Since, true) {
			continue
		}
		if r.Until != "" && kbAtLeast(release, kbNextMinor(r.Until), false) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// kbAtLeast reports whether release >= min (major.minor). An empty min is
// always met; an unparsable release or min gives ifUnknown.
func kbAtLeast(release, min string, ifUnknown bool) bool {
	if min == "" {
		return true
	}
	rmaj, rmin, ok1 := kbKernelVersion(release)
	mmaj, mmin, ok2 := kbKernelVersion(min)
	if !ok1 || !ok2 {
		return ifUnknown
	}
	return rmaj > mmaj || (rmaj == mmaj && rmin >= mmin)
}

// kbNextMinor returns "major.(minor+1)" for a "major.minor" version.
func kbNextMinor(v string) string {
	maj, min, ok := kbKernelVersion(v)
	if !ok {
		return v
	}
	return fmt.Sprintf("%d.%d", maj, min+1)
}

// kbKernelVersion parses the major and minor number at the start of a
// kernel release ("6.18.44-fc-v657", "4.4.0-19041-Microsoft", "6.17").
func kbKernelVersion(release string) (major, minor int, ok bool) {
	s := strings.TrimSpace(release)
	majS, rest, found := strings.Cut(s, ".")
	if !found {
		return 0, 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 || end > 4 || len(majS) == 0 || len(majS) > 4 {
		return 0, 0, false
	}
	maj, err1 := strconv.Atoi(majS)
	mnr, err2 := strconv.Atoi(rest[:end])
	if err1 != nil || err2 != nil || maj < 0 || strings.HasPrefix(majS, "+") {
		return 0, 0, false
	}
	return maj, mnr, true
}

// LookupVulnerability looks a vulnerability file name up in the embedded
// knowledge base; see (*Knowledge).LookupVulnerability.
func LookupVulnerability(name string) (KBEntry, bool) {
	k, err := KnowledgeBase()
	if err != nil {
		return KBEntry{}, false
	}
	return k.LookupVulnerability(name)
}

// LookupParam looks a kernel parameter up in the embedded knowledge base;
// see (*Knowledge).LookupParam.
func LookupParam(key string) (KBParam, bool) {
	k, err := KnowledgeBase()
	if err != nil {
		return KBParam{}, false
	}
	return k.LookupParam(key)
}

// ExplainChange explains a vulnerability-file change with the embedded
// knowledge base; see (*Knowledge).ExplainChange.
func ExplainChange(name, from, to string) string {
	k, err := KnowledgeBase()
	if err != nil {
		return fmt.Sprintf("%s: %s → %s", name, kbShow(kbOneLine(from)), kbShow(kbOneLine(to)))
	}
	return k.ExplainChange(name, from, to)
}

// OneLiner returns the embedded knowledge base's one-liner for a
// vulnerability; see (*Knowledge).OneLiner.
func OneLiner(name string) (string, bool) {
	k, err := KnowledgeBase()
	if err != nil {
		return "", false
	}
	return k.OneLiner(name)
}
