package mitigation

import (
	"strings"
)

// State is the verdict of one vulnerability file.
type State string

// The states of env.vulnerabilities[].state (docs/format.md).
const (
	NotAffected State = "not_affected"
	Mitigated   State = "mitigated"
	Vulnerable  State = "vulnerable"
	Unknown     State = "unknown"
)

// Vulnerability is one file of /sys/devices/system/cpu/vulnerabilities/.
type Vulnerability struct {
	// Name is the file name ("spectre_v2").
	Name string `json:"name"`
	// Raw is the file's text with the trailing newline removed.
	Raw string `json:"raw"`
	// State is derived from the line's prefix.
	State State `json:"state"`
	// Scope is "kvm" for lines that only speak of KVM guests
	// ("KVM: Mitigation: Split huge pages" in itlb_multihit), else "".
	Scope string `json:"scope,omitempty"`
	// Mitigation is the detail: the text after "Mitigation: ",
	// "Vulnerable: " or "Unknown: " up to the first sub-field ("Enhanced /
	// Automatic IBRS", "No microcode"). Empty for a bare verdict.
	Mitigation string `json:"mitigation"`
	// Fields are the sub-fields: "; KEY: value" pairs (STIBP, IBPB,
	// PBRSB-eIBRS, BHI, VMX), bare flags with an empty value (IBRS_FW,
	// "RSB filling"), "SMT <state>" as SMT, and the " - vulnerable module
	// loaded" tail as vulnerable_module=loaded.
	Fields map[string]string `json:"fields"`
	// Note is a remark on how to read the line, e.g. that l1tf's PTE
	// inversion stays on under mitigations=off.
	Note string `json:"note,omitempty"`
	// Partial is true for a mitigated line that leaves part of the
	// exposure open: arm64 "CSV2, but not BHB", tsa "Clear CPU buffers:
	// VM", a "BHI: Vulnerable" or "PBRSB-eIBRS: Vulnerable" sub-field,
	// l1tf "VMX: vulnerable", "SMT vulnerable", a vulnerable module.
	Partial bool `json:"partial,omitempty"`
}

// fieldKeys are the sub-fields that take "KEY: value".
var fieldKeys = []string{"IBPB", "STIBP", "PBRSB-eIBRS", "BHI", "VMX"}

// flagKeys are the bare sub-fields.
var flagKeys = []string{"IBRS_FW", "RSB filling"}

// ParseVulnerability parses the text of one vulnerability file by the
// grammar of the lines arch/x86/kernel/cpu/bugs.c prints (the prefixes of
// https://docs.kernel.org/admin-guide/abi-testing.html#abi-sys-devices-system-cpu-vulnerabilities): the state from the prefix, the detail up
// to the first "; " (or ", " on old kernels) that starts a known sub-field,
// then the sub-fields. A "; " that does not start a sub-field is part of the
// text (spectre_v1's "…; no swapgs barriers"). It never fails; a line it
// cannot read has state unknown, and Raw always holds the text.
func ParseVulnerability(name, raw string) Vulnerability {
	text := strings.TrimRight(raw, " \t\r\n\x00")
	v := Vulnerability{Name: name, Raw: text, State: Unknown, Fields: map[string]string{}}
	s := strings.TrimSpace(text)

	if rest, ok := cutPrefixFold(s, "KVM: "); ok {
		v.Scope = "kvm"
		s = rest
	}
	const tail = " - vulnerable module loaded"
	if strings.HasSuffix(s, tail) {
		s = strings.TrimSuffix(s, tail)
		v.setField("vulnerable_module", "loaded")
	}

	var detail string
	switch {
	case hasPrefixFold(s, "Not affected"):
		v.State = NotAffected
		detail = strings.TrimLeft(s[len("Not affected"):], ":;, ")
	case hasPrefixFold(s, "Mitigation"):
		v.State = Mitigated
		detail = strings.TrimLeft(s[len("Mitigation"):], ": ")
	case hasPrefixFold(s, "Vulnerable"):
		v.State = Vulnerable
		detail = s[len("Vulnerable"):]
		if strings.HasPrefix(detail, ":") {
			detail = strings.TrimLeft(detail[1:], " ")
		}
	case hasPrefixFold(s, "Processor vulnerable"):
		v.State = Vulnerable
		detail = strings.TrimLeft(s[len("Processor vulnerable"):], ":; ")
	case hasPrefixFold(s, "Unknown"):
		v.State = Unknown
		detail = strings.TrimLeft(s[len("Unknown"):], ": ")
	default:
		// Not a line of the grammar: keep it whole as the detail.
		v.Mitigation = s
		return v
	}
	v.Mitigation, detail = splitDetail(detail)
	v.parseFields(detail)
	if v.State == Mitigated && hasPrefixFold(v.Mitigation, "Vulnerable") {
		// indirect_target_selection=vmexit prints "Mitigation: Vulnerable,
		// KVM: Not affected": guests cannot attack the host, but the
		// kernel stays open to intra-mode BTI (hw-vuln/indirect-target-selection.rst).
		v.State = Vulnerable
	}
	v.Partial = v.State == Mitigated && partialLine(name, s, v.Fields)
	if name == "l1tf" && v.State == Mitigated && strings.HasPrefix(v.Mitigation, "PTE Inversion") {
		v.Note = "PTE inversion is always on; mitigations=off does not remove it"
	}
	return v
}

// partialLine reports whether a mitigated line leaves part of the exposure
// open, by the knowledge base's partial modes and the sub-fields the
// kernel prints for an uncovered part.
func partialLine(name, line string, fields map[string]string) bool {
	if strings.Contains(line, ", but not BHB") || fields["vulnerable_module"] == "loaded" ||
		fields["SMT"] == "vulnerable" && fields["VMX"] != "flush not necessary" || fields["PBRSB-eIBRS"] == "Vulnerable" ||
		strings.HasPrefix(fields["BHI"], "Vulnerable") || strings.HasPrefix(fields["VMX"], "vulnerable") {
		return true
	}
	if kb, err := KnowledgeBase(); err == nil {
		if m, ok := kb.ModeOf(name, line); ok {
			return m.Partial
		}
	}
	return false
}

// splitDetail cuts s at the first separator ("; " or ", ", or a leading
// ";"/",") that starts a known sub-field and returns the detail before it
// and the sub-field text after it (separator included).
func splitDetail(s string) (detail, rest string) {
	for i := 0; i < len(s); i++ {
		if s[i] != ';' && s[i] != ',' {
			continue
		}
		after := strings.TrimLeft(s[i+1:], " ")
		if startsField(after) {
			return strings.TrimSpace(s[:i]), s[i:]
		}
	}
	return strings.TrimSpace(s), ""
}

// startsField reports whether s begins with a known sub-field.
func startsField(s string) bool {
	for _, k := range fieldKeys {
		if strings.HasPrefix(s, k+":") {
			return true
		}
	}
	for _, k := range flagKeys {
		if s == k || strings.HasPrefix(s, k+";") || strings.HasPrefix(s, k+",") {
			return true
		}
	}
	return strings.HasPrefix(s, "SMT ")
}

// parseFields reads "; KEY: value; FLAG; SMT state" (with ", " accepted as
// a separator where the next piece starts a known sub-field).
func (v *Vulnerability) parseFields(s string) {
	for s != "" {
		// s starts with a separator; drop it.
		s = strings.TrimLeft(s[1:], " ")
		// The value runs to the next separator that starts a sub-field.
		end := len(s)
		for i := 0; i < len(s); i++ {
			if (s[i] == ';' || s[i] == ',') && startsField(strings.TrimLeft(s[i+1:], " ")) {
				end = i
				break
			}
		}
		piece := strings.TrimSpace(s[:end])
		s = s[end:]
		switch {
		case strings.HasPrefix(piece, "SMT "):
			v.setField("SMT", strings.TrimPrefix(piece, "SMT "))
		default:
			key, val, ok := strings.Cut(piece, ":")
			if !ok || !isFieldKey(key) {
				v.setField(piece, "")
				continue
			}
			v.setField(key, strings.TrimSpace(val))
		}
	}
}

func isFieldKey(k string) bool {
	for _, f := range fieldKeys {
		if f == k {
			return true
		}
	}
	return false
}

func (v *Vulnerability) setField(k, val string) {
	if v.Fields == nil {
		v.Fields = map[string]string{}
	}
	v.Fields[k] = val
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if hasPrefixFold(s, prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// Counts tallies vulnerabilities by state.
type Counts struct {
	Mitigated   int `json:"mitigated"`
	Vulnerable  int `json:"vulnerable"`
	NotAffected int `json:"not_affected"`
	Unknown     int `json:"unknown"`
}

// Count tallies vs by state.
func Count(vs []Vulnerability) Counts {
	var c Counts
	for _, v := range vs {
		switch v.State {
		case Mitigated:
			c.Mitigated++
		case Vulnerable:
			c.Vulnerable++
		case NotAffected:
			c.NotAffected++
		default:
			c.Unknown++
		}
	}
	return c
}
