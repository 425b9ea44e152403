package mitigation

import (
	"fmt"
	"strconv"
	"strings"
)

// KernelBelow reports whether a kernel release ("4.15.0-213-generic") is
// older than a major.minor version ("5.2"); false when either does not
// parse or min is empty. The release is parsed by the knowledge base's one
// reader of a kernel's major.minor (kbKernelVersion), so advise and the
// knowledge base never disagree on a version.
func KernelBelow(release, min string) bool { return !kbAtLeast(release, min, true) }

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

// kbAtLeast reports whether release >= min, on the full version: a
// min of "6.17.7" is not met by 6.17.0 to 6.17.6 (a stable patch changed
// the rule there), "6.17" by every 6.17.y. An empty min is always met; an
// unparsable release or min gives ifUnknown. A release whose stable level
// is hidden (Ubuntu's 6.17.0-N-generic, see StableHidden) is read at its
// written level, .0: Knowledge.Uncertain names what that may get wrong.
func kbAtLeast(release, min string, ifUnknown bool) bool {
	if min == "" {
		return true
	}
	r, ok1 := kbFullVersion(release)
	m, ok2 := kbFullVersion(min)
	if !ok1 || !ok2 {
		return ifUnknown
	}
	for i := range r {
		if r[i] != m[i] {
			return r[i] > m[i]
		}
	}
	return true
}

// kbFullVersion parses major.minor.patch at the start of a kernel
// release ("6.17.7-arch1" is 6.17.7; "6.17.0-5-generic", "6.17" and
// "6.17-rc3" are 6.17.0).
func kbFullVersion(release string) ([3]int, bool) {
	maj, mnr, ok := kbKernelVersion(release)
	if !ok {
		return [3]int{}, false
	}
	v := [3]int{maj, mnr, 0}
	_, rest, _ := strings.Cut(strings.TrimSpace(release), ".")
	rest = strings.TrimLeft(rest, "0123456789")
	if p, ok := strings.CutPrefix(rest, "."); ok {
		end := 0
		for end < len(p) && end < 6 && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		if end > 0 {
			v[2], _ = strconv.Atoi(p[:end])
		}
	}
	return v, true
}

// StableHidden reports whether a release string hides the kernel's stable
// level: distributions that keep an ABI name write every stable update of
// a series as X.Y.0 followed by their own number (Ubuntu's
// "6.17.0-5-generic", Debian's "6.1.0-57-amd64"), so a rule that changed
// at a stable patch (6.17.7) cannot be read from it.
func StableHidden(release string) bool {
	v, ok := kbFullVersion(release)
	if !ok || v[2] != 0 {
		return false
	}
	_, rest, _ := strings.Cut(strings.TrimSpace(release), ".")
	rest = strings.TrimLeft(rest, "0123456789")
	abi, ok := strings.CutPrefix(rest, ".0-")
	return ok && abi != "" && abi[0] >= '0' && abi[0] <= '9'
}

// StableFromVersion is the upstream version a distribution writes in
// /proc/version when its release string hides the stable level
// (StableHidden): Debian's "… #1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1
// (2025-11-09)" gives "6.1.158" for the release "6.1.0-41-amd64". It is ""
// when the text names no version of the release's own series (Ubuntu's
// /proc/version does not).
func StableFromVersion(release, procVersion string) string {
	rv, ok := kbFullVersion(release)
	if !ok {
		return ""
	}
	for _, w := range strings.Fields(procVersion) {
		w, _, _ = strings.Cut(w, "-")
		w, _, _ = strings.Cut(w, "+")
		v, ok := kbFullVersion(w)
		if !ok || v[0] != rv[0] || v[1] != rv[1] || strings.Count(w, ".") != 2 || v[2] == 0 {
			continue
		}
		return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	}
	return ""
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
