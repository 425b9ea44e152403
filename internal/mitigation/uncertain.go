package mitigation

import (
	"fmt"
	"slices"
	"strings"
)

// Uncertain names the files of m whose rule changed at a stable patch of
// the machine's own series when the model cannot tell the stable level
// (Machine.StableUnknown: Ubuntu's "6.17.0-5-generic" is any 6.17.y): on
// such a machine the prediction for them may be wrong either way, and
// only a boot of the kernel itself (decide --prove) settles it. The
// rules are the parameters' vectors_since and overrides_off_since that
// name a stable level (vmscape: 6.17.7).
func (k *Knowledge) Uncertain(m Machine) []string {
	if !m.StableUnknown() {
		return nil
	}
	rv, ok := kbFullVersion(m.Release)
	if !ok {
		return nil
	}
	var out []string
	for _, p := range k.Params {
		for _, since := range []string{p.VectorsSince, p.OverridesOffSince} {
			v, ok := kbFullVersion(since)
			if !ok || v[2] == 0 || v[0] != rv[0] || v[1] != rv[1] {
				continue
			}
			for _, f := range p.Files {
				if _, shown := m.Lines[f]; shown && !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// UncertainNote is the one sentence decide, advise and verify say when
// Uncertain names files of m ("" when none): the stable level is hidden,
// so what a line does to them is uncertain, and --prove settles it.
func (k *Knowledge) UncertainNote(m Machine) string {
	u := k.Uncertain(m)
	if len(u) == 0 {
		return ""
	}
	series := m.Release
	if v, ok := kbFullVersion(m.Release); ok {
		series = fmt.Sprintf("%d.%d", v[0], v[1])
	}
	// When each rule changed: the knowledge base's stable levels
	// (vectors_since, overrides_off_since), the facts Uncertain reads.
	var when []string
	for _, p := range k.Params {
		for _, since := range []string{p.VectorsSince, p.OverridesOffSince} {
			if !strings.HasPrefix(since, series+".") || !slices.ContainsFunc(p.Files, func(f string) bool { return slices.Contains(u, f) }) {
				continue
			}
			if w := p.Key + "= from " + since; !slices.Contains(when, w) {
				when = append(when, w)
			}
		}
	}
	return fmt.Sprintf("kernel %s hides its stable level (any %s.y): the rule for %s changed within the series (%s), so what a command line does to it is uncertain here; --prove boots this kernel and reads it", m.Release, series, strings.Join(u, ", "), strings.Join(when, "; "))
}
