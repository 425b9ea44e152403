package mitigation

import (
	"strings"
)

// What a command line is predicted to do to the vulnerability files of a
// machine: the one prediction advise's plan and verification, a
// configuration's verification (config) and attribution's plan use.

// PerBugOverrides reports whether the kernel release lets a per-bug
// parameter override mitigations= (Linux 6.17+), by the knowledge base.
func (k *Knowledge) PerBugOverrides(release string) bool {
	for _, r := range k.PrecedenceFor(release) {
		if r.ID == "per-bug-overrides-global" {
			return true
		}
	}
	return false
}

// KeptAnyway says what the off switches leave of a mitigated line on the
// machine's architecture: kept when no parameter changes it there (arm64's
// __user pointer sanitization, s390's etokens, x86's bare PTE inversion)
// or when it is a mode mitigations=off leaves in place (TSX disabled);
// weakened, with the line as it becomes, when only a part goes (l1tf's
// VMX flush: "VMX: vulnerable").
func (k *Knowledge) KeptAnyway(arch, name, raw string) (kept bool, weakened string) {
	m, ok := k.ModeOf(name, raw)
	if !ok {
		return false, ""
	}
	if m.KeptByOff {
		return true, ""
	}
	if !m.FixedOn(arch) {
		return false, ""
	}
	if k.Changeable(arch, name, raw) {
		// A fixed mode with a part that does change.
		if w := m.OffText(strings.TrimSpace(raw)); w != strings.TrimSpace(raw) {
			return false, w
		}
	}
	return true, ""
}

// AlwaysOn reports whether a mitigated line keeps its "Mitigation:"
// prefix whatever the off switches do on the architecture (kept whole, or
// only weakened).
func (k *Knowledge) AlwaysOn(arch, name, raw string) bool {
	kept, weakened := k.KeptAnyway(arch, name, raw)
	return kept || weakened != ""
}

// VERWUsers are the files whose mitigation is the same VERW CPU-buffer
// clear: it goes away only when all of them are off (kernel-parameters.txt,
// mds=; https://docs.kernel.org/admin-guide/hw-vuln/mds.html), and the
// kernel reports the ones turned off alone as mitigated again.
var VERWUsers = map[string]bool{"mds": true, "tsx_async_abort": true, "mmio_stale_data": true, "reg_file_data_sampling": true}

// TargetFile is a mitigated file that params aim at, and the parameter that
// turns it off.
type TargetFile struct{ Name, Raw, By string }

// Targets are the mitigated files of m that params aim at, each judged
// alone (the shared-VERW rule is not applied): which parameter belongs to
// which file. Files reported "Not affected" and always-on mitigations are
// left out: no parameter changes them.
func (k *Knowledge) Targets(m Machine, params []Param) []TargetFile {
	p := k.predict(m, params, false)
	var off []TargetFile
	for _, f := range m.Vulns {
		if f.State != Mitigated || k.AlwaysOn(m.Arch, f.Name, f.Raw) {
			continue
		}
		if st := p.Of(f.Name); st.Off {
			off = append(off, TargetFile{Name: f.Name, Raw: f.Raw, By: st.By})
		}
	}
	return off
}

// ExpectedOff names the mitigated files of m that params are expected to
// turn off, by the model (PredictFiles' given up, the shared VERW clear
// included): what a configuration gives up on this machine.
func (k *Knowledge) ExpectedOff(m Machine, params []Param) []string {
	fs, _ := k.PredictFiles(m, params)
	names := []string{}
	for _, f := range fs {
		if f.Class == ClassGivenUp {
			names = append(names, f.Name)
		}
	}
	return names
}

// ExpectedOffAtBoot is ExpectedOff for a machine that booted under params:
// a line it shows vulnerable is judged as if it were mitigated at the
// defaults (a parameter turns a file off only where it would otherwise be
// on). Both boot verifiers ask it (advise.Verify for sectax verify,
// config.Verify for a lab or campaign boot), so they agree on every
// command line.
func (k *Knowledge) ExpectedOffAtBoot(m Machine, params []Param) []string {
	vulns := make([]Vulnerability, 0, len(m.Vulns))
	for _, f := range m.Vulns {
		if f.State == Vulnerable {
			f.State = Mitigated
			f.Raw = "Mitigation: (predicted)"
		}
		vulns = append(vulns, f)
	}
	as := NewMachine(m.Arch, m.Vendor, m.Family, m.Release, m.Platform, vulns)
	as.NoGlobalSwitch = m.NoGlobalSwitch
	as.Version = m.Version
	return k.ExpectedOff(as, params)
}
