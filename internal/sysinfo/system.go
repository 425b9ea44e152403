package sysinfo

import (
	"strconv"
	"strings"
)

// memory reads MemTotal of /proc/meminfo (a status-like "key: value"
// text, read by StatusValue).
func (c *collector) memory(s *Snapshot) {
	v, ok := c.read("proc/meminfo")
	if !ok {
		return
	}
	total, _ := StatusValue(v, "MemTotal")
	f := strings.Fields(total)
	if len(f) == 0 {
		return
	}
	n, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return
	}
	if len(f) > 1 && f[1] == "kB" {
		n *= 1024
	}
	s.Memory.TotalBytes = &n
}

// thp reads the transparent-huge-pages mode.
func (c *collector) thp(s *Snapshot) {
	if v, ok := c.read("sys/kernel/mm/transparent_hugepage/enabled"); ok {
		s.THP.EnabledRaw, s.THP.Enabled = v, selected(v)
	}
	if v, ok := c.read("sys/kernel/mm/transparent_hugepage/defrag"); ok {
		s.THP.DefragRaw, s.THP.Defrag = v, selected(v)
	}
}

// osRelease reads PRETTY_NAME of /etc/os-release, else
// /usr/lib/os-release.
func (c *collector) osRelease(s *Snapshot) {
	osr, ok := c.readQuiet("etc/os-release")
	if !ok {
		osr, ok = c.read("usr/lib/os-release")
	}
	if ok {
		s.OSRelease = OSReleaseValue(osr, "PRETTY_NAME")
	}
}

// speculation reads this process's speculation controls: the
// /proc/self/status lines, and on the running machine the prctl values.
func (c *collector) speculation(s *Snapshot) {
	if v, ok := c.read("proc/self/status"); ok {
		s.Speculation.StoreBypass.Status, _ = StatusValue(v, "Speculation_Store_Bypass")
		s.Speculation.IndirectBranch.Status, _ = StatusValue(v, "SpeculationIndirectBranch")
		s.Speculation.Seccomp, _ = StatusValue(v, "Seccomp")
	}
	if c.live {
		prctlSpec(&s.Speculation.StoreBypass, 0)
		prctlSpec(&s.Speculation.IndirectBranch, 1)
		prctlSpec(&s.Speculation.L1DFlush, 2)
	}
}
