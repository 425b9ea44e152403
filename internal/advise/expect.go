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
	newer := newPrecedence(kb, s.Kernel.Release)
	var off []Loss
	for _, f := range s.Vulnerabilities {
		if f.State != mitigation.Mitigated || alwaysOn(kb, f.Name, f.Raw) {
			continue
		}
		e, _ := kb.LookupVulnerability(f.Name)
		if st := predict(params, f.Name, e.Vectors, newer); st.off {
			off = append(off, Loss{Name: f.Name, From: f.Raw, By: st.by})
		}
	}
	off, _ = sharedVERW(s, off, nil, params, kb, newer)
	names := make([]string, 0, len(off))
	for _, l := range off {
		names = append(names, l.Name)
	}
	return names
}
