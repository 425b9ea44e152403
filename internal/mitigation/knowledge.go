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
	"slices"
	"sort"
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
	// VMGuestArch are the architectures VMGuest and WSL are written for
	// (they name one architecture's mechanisms: PTI, eIBRS, VMX); empty
	// means every architecture in Arch. GuestNote says nothing elsewhere.
	VMGuestArch []string `json:"vm_guest_arch,omitempty"`
	// WSL is what changes inside WSL 2.
	WSL string `json:"wsl"`
	// GuestFacts are guest notes that hold only where the machine's line
	// shows their condition (GuestFacts): never a canned claim that
	// contradicts the line.
	GuestFacts []KBFact `json:"guest_facts,omitempty"`
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

// KBFact is a note printed only when the vulnerability line contains When
// (case-insensitive), and, with WSL, only inside WSL 2.
type KBFact struct {
	When string `json:"when"`
	WSL  bool   `json:"wsl,omitempty"`
	Text string `json:"text"`
}

// GuestNote is the entry's note for a guest on arch (inside WSL 2 when
// wsl): VMGuest, or WSL where it is written ("Same as any guest: …"
// extends VMGuest); "" on an architecture the notes are not written for.
func (e KBEntry) GuestNote(arch string, wsl bool) string {
	if len(e.VMGuestArch) > 0 && !slices.Contains(e.VMGuestArch, arch) {
		return ""
	}
	if !wsl || e.WSL == "" {
		return e.VMGuest
	}
	if rest, ok := strings.CutPrefix(e.WSL, "Same as any guest"); ok {
		return strings.TrimSpace(e.VMGuest + " " + strings.TrimLeft(strings.TrimPrefix(rest, "."), ": "))
	}
	return e.WSL
}

// Facts are the entry's guest facts that hold for a guest whose line is raw.
func (e KBEntry) Facts(raw string, wsl bool) []string {
	var out []string
	for _, f := range e.GuestFacts {
		if (!f.WSL || wsl) && strings.Contains(strings.ToLower(raw), strings.ToLower(f.When)) {
			out = append(out, f.Text)
		}
	}
	return out
}

// GlobalSwitchConfig is the kernel configuration option that builds
// mitigations= in or out on a kernel release: CONFIG_CPU_MITIGATIONS from
// 6.9, CONFIG_SPECULATION_MITIGATIONS (x86) before.
func GlobalSwitchConfig(release string) string {
	if KernelBelow(release, "6.9") {
		return "CONFIG_SPECULATION_MITIGATIONS"
	}
	return "CONFIG_CPU_MITIGATIONS"
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
	// VectorsSince is when mitigations= gained attack vectors; on a
	// per-bug parameter, from when its bug left AUTO asks the attack
	// vectors (should_mitigate_vuln()), when later than mitigations='s
	// (vmscape: 6.17.7, a stable patch).
	VectorsSince string   `json:"vectors_since,omitempty"`
	Arch         []string `json:"arch"`
	// Precedence says how it interacts with other parameters.
	Precedence string `json:"precedence"`
	// Defers are the values that leave the bug to the kernel's default
	// choice (its AUTO state, decided by should_mitigate_vuln(), which
	// mitigations=off turns false): retbleed=auto, srbds=on, vmscape=force.
	// "*" is every value that is not off. The model's RuleDefers.
	Defers []string `json:"defers,omitempty"`
	// OverridesOffSince is the kernel (major.minor) from which an explicit
	// value keeps the bug mitigated under mitigations=off, when later than
	// the per-bug-overrides-global rule (6.17).
	OverridesOffSince string `json:"overrides_off_since,omitempty"`
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
	// Since is the mainline version that added the value, when it came
	// after its parameter: an older kernel logs it as unknown and ignores
	// it (6.1's retbleed_parse_cmdline: "Ignoring unknown retbleed option").
	Since string `json:"since,omitempty"`
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
	// Weakens are the files it leaves mitigated with a part off (the
	// class advise --target of the same line calls weakened).
	Weakens []string `json:"weakens,omitempty"`
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

// Since is the mainline version from which a kernel takes p as written:
// its parameter's Since, or the newest Since of the values it names (a
// comma list names several), whichever came later; "" when the
// parameter is unknown or nothing is dated.
func (k *Knowledge) Since(p Param) string {
	kp, ok := k.lookupParam(p.Key())
	if !ok {
		return ""
	}
	since := kp.Since
	for _, item := range strings.Split(p.Value, ",") {
		for _, v := range kp.Values {
			if v.Value == item && v.Since != "" && (since == "" || !kbAtLeast(since, v.Since, true)) {
				since = v.Since
			}
		}
	}
	return since
}

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
