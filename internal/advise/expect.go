package advise

import (
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// ExpectedOff names the vulnerability files of s that params are expected
// to turn off on s's kernel (by the knowledge base and the kernel's
// precedence rules): the files whose state a configuration must change.
// Files reported "Not affected" and always-on mitigations are left out:
// no parameter changes them. The VERW rule holds as in Plan: a user of
// the shared CPU-buffer clear turned off by its own parameter stays
// mitigated while another user still needs the clear.
func ExpectedOff(s *sysinfo.Snapshot, params []mitigation.Param, kb *mitigation.Knowledge) []string {
	off, _ := sharedVERW(s, targets(s, params, kb), nil, params, kb, newPrecedence(kb, s.Kernel.Release))
	names := make([]string, 0, len(off))
	for _, l := range off {
		names = append(names, l.Name)
	}
	return names
}

// Targets names the mitigated files of s that params aim at, each judged
// alone: the shared-VERW rule of ExpectedOff is not applied, so mds=off
// names mds even where mmio_stale_data keeps the buffer clear on. It says
// which parameter belongs to which file; ExpectedOff says what the kernel
// will show.
func Targets(s *sysinfo.Snapshot, params []mitigation.Param, kb *mitigation.Knowledge) []string {
	var names []string
	for _, l := range targets(s, params, kb) {
		names = append(names, l.Name)
	}
	return names
}

func targets(s *sysinfo.Snapshot, params []mitigation.Param, kb *mitigation.Knowledge) []Loss {
	newer := newPrecedence(kb, s.Kernel.Release)
	var off []Loss
	for _, f := range s.Vulnerabilities {
		if f.State != mitigation.Mitigated || alwaysOn(kb, s.CPU.Arch, f.Name, f.Raw) {
			continue
		}
		e, _ := kb.LookupVulnerability(f.Name)
		if st := predict(params, f.Name, e.Vectors, newer, s.CPU.Arch); st.off {
			off = append(off, Loss{Name: f.Name, From: f.Raw, By: st.by})
		}
	}
	return off
}
