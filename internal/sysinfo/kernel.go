package sysinfo

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
)

// kernel reads the running kernel: its release, version, uptime, clock
// source, preemption model and build configuration, and the hostname
// (proc/sys/kernel, as the release).
func (c *collector) kernel(s *Snapshot) {
	if c.isDir("proc") {
		if v, ok := c.read("proc/sys/kernel/osrelease"); ok {
			s.Kernel.Release = strings.Join(strings.Fields(v), " ")
		}
		s.Hostname = c.hostname()
	} else {
		c.absent("proc")
	}
	if v, ok := c.read("proc/version"); ok {
		s.Kernel.Version = v
	}
	if v, ok := c.read("proc/uptime"); ok {
		if f := strings.Fields(v); len(f) > 0 {
			if u, err := strconv.ParseFloat(f[0], 64); err == nil {
				s.Kernel.UptimeSeconds = &u
			}
		}
	}
	c.clocksource(s)
	c.preemption(s)
}

// clocksource reads clocksource0's current and available clock sources.
func (c *collector) clocksource(s *Snapshot) {
	const cs0 = "sys/devices/system/clocksource/clocksource0"
	switch {
	case !c.isDir("sys"):
		c.absent("sys")
	case !c.isDir(cs0):
		c.absent(cs0)
	default:
		cur, ok := c.read(cs0 + "/current_clocksource")
		if !ok {
			return
		}
		avail, ok := c.read(cs0 + "/available_clocksource")
		if !ok {
			return
		}
		s.Kernel.Clocksource = strings.TrimSpace(cur)
		s.Kernel.ClocksourcesAvailable = strings.Fields(avail)
	}
}

// preemption finds the preemption model: debugfs, /sys/kernel/realtime,
// the build flags of /proc/version, then the build configuration.
func (c *collector) preemption(s *Snapshot) {
	if v, ok := c.readQuiet("sys/kernel/debug/sched/preempt"); ok {
		if i := strings.Index(v, "("); i >= 0 {
			if j := strings.Index(v[i:], ")"); j > 0 {
				s.Kernel.Preemption = v[i+1 : i+j]
				s.Kernel.PreemptionSource = "debugfs"
			}
		}
	}
	if s.Kernel.Preemption == "" {
		if v, ok := c.readQuiet("sys/kernel/realtime"); ok && v == "1" {
			s.Kernel.Preemption, s.Kernel.PreemptionSource = "rt", "/sys/kernel/realtime"
		}
	}
	if s.Kernel.Preemption == "" && s.Kernel.Version != "" {
		if p := PreemptionFromVersion(s.Kernel.Version); p != "" {
			s.Kernel.Preemption, s.Kernel.PreemptionSource = p, "/proc/version"
		}
	}
	c.kernelConfig(s)
	if kc := s.Kernel.Config; kc != nil && kc.Preempt != "" && (s.Kernel.Preemption == "" || s.Kernel.Preemption == "dynamic") {
		// The version string does not tell none from voluntary; the
		// config does, and for a dynamic kernel it gives the default.
		p := kc.Preempt
		if kc.PreemptDynamic {
			p = "dynamic (default " + p + ")"
		}
		s.Kernel.Preemption, s.Kernel.PreemptionSource = p, "config"
	}
}

// kernelConfig reads /proc/config.gz, else /boot/config-<release>.
func (c *collector) kernelConfig(s *Snapshot) {
	cands := []string{"proc/config.gz"}
	if r := s.Kernel.Release; r != "" && !strings.ContainsAny(r, "/\x00") {
		cands = append(cands, "boot/config-"+r)
	}
	for _, rel := range cands {
		b, err := c.fs.ReadFile(rel)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				c.note(rel, err)
			}
			continue
		}
		kc := ParseKernelConfig(b)
		kc.Source = "/" + rel
		s.Kernel.Config = &kc
		return
	}
}

// bootID reads /proc/sys/kernel/random/boot_id.
func (c *collector) bootID(s *Snapshot) {
	if v, ok := c.read("proc/sys/kernel/random/boot_id"); ok {
		s.BootID = v
	}
}
