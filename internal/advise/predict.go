package advise

import (
	"github.com/sectax/sectax/internal/mitigation"
)

// TooOld returns, for each parameter the running kernel predates, the
// version that added it or the value it names (knowledge base "since",
// Knowledge.Since): such a kernel passes an unknown parameter on to init
// and logs an unknown value as ignored.
func TooOld(kb *mitigation.Knowledge, release string, params []mitigation.Param) map[string]string {
	out := map[string]string{}
	for _, p := range params {
		if since := kb.Since(p); since != "" && mitigation.KernelBelow(release, since) {
			out[p.Raw] = since
		}
	}
	return out
}
