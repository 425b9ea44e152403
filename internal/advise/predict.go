package advise

import (
	"github.com/sectax/sectax/internal/mitigation"
)

// TooOld returns, for each parameter the running kernel predates, the
// version that added it (knowledge base "since"): such a kernel does not
// know the parameter and passes it on to init.
func TooOld(kb *mitigation.Knowledge, release string, params []mitigation.Param) map[string]string {
	out := map[string]string{}
	for _, p := range params {
		kp, ok := kb.LookupParam(p.Key())
		if ok && kp.Since != "" && mitigation.KernelBelow(release, kp.Since) {
			out[p.Raw] = kp.Since
		}
	}
	return out
}
