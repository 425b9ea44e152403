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

// kbAtLeast reports whether release >= min (major.minor). An empty min is
// always met; an unparsable release or min gives ifUnknown.
func kbAtLeast(release, min string, ifUnknown bool) bool {
	if min == "" {
		return true
	}
	rmaj, rmin, ok1 := kbKernelVersion(release)
	mmaj, mmin, ok2 := kbKernelVersion(min)
	if !ok1 || !ok2 {
		return ifUnknown
	}
	return rmaj > mmaj || (rmaj == mmaj && rmin >= mmin)
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
