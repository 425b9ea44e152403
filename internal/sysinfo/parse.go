package sysinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
)

// PreemptionFromVersion reads the preemption model from the build flags in
// /proc/version ("#1 SMP PREEMPT_DYNAMIC …"): rt, lazy, dynamic, full, or
// "" when no PREEMPT flag is printed (none or voluntary, which the kernel
// does not tell apart there).
func PreemptionFromVersion(v string) string {
	for _, w := range strings.Fields(v) {
		switch w {
		case "PREEMPT_RT":
			return "rt"
		case "PREEMPT_LAZY":
			return "lazy"
		case "PREEMPT_DYNAMIC":
			return "dynamic"
		}
	}
	for _, w := range strings.Fields(v) {
		if w == "PREEMPT" {
			return "full"
		}
	}
	return ""
}

// selected picks the bracketed choice of a sysfs multiple-choice file
// ("always [madvise] never" gives "madvise").
func selected(v string) string {
	i := strings.Index(v, "[")
	j := strings.Index(v, "]")
	if i >= 0 && j > i {
		return v[i+1 : j]
	}
	return v
}

// hashText is the hex SHA-256 of s.
func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// hashVulnerabilities is the hex SHA-256 of "name\x00raw\n" for each entry,
// in the given (sorted) order.
func hashVulnerabilities(vs []mitigation.Vulnerability) string {
	h := sha256.New()
	for _, v := range vs {
		h.Write([]byte(v.Name + "\x00" + v.Raw + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// StatusValue returns the trimmed value of the "key:" line of a /proc
// status text (/proc/PID/status, /proc/PID/task/TID/status), the first
// when the key repeats. procfs's ProcStatus does not carry the speculation
// lines, so this is the one reader of them: the snapshot's and the
// workloads' --spec checks.
func StatusValue(text, key string) (string, bool) {
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && k == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
