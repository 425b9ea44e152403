package advise

import (
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// ExpectedOff names the vulnerability files of s that params are expected
// to turn off on s's kernel (by the knowledge base and the kernel's
// precedence rules): the files whose state a configuration must change.
// Files reported "Not affected" and always-on mitigations are left out:
// no parameter changes them.
func ExpectedOff(s *sysinfo.Snapshot, params []mitigation.Param, kb *mitigation.Knowledge) []string {
	newer := newPrecedence(kb, s.Kernel.Release)
	var names []string
	for _, f := range s.Vulnerabilities {
		if f.State != mitigation.Mitigated || alwaysOn(kb, f.Name, f.Raw) {
			continue
		}
		e, _ := kb.LookupVulnerability(f.Name)
		if predict(params, f.Name, e.Vectors, newer).off {
			names = append(names, f.Name)
		}
	}
	return names
}
