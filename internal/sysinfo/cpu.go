package sysinfo

import "strings"

// cpu reads /proc/cpuinfo and the CPU lists of /sys/devices/system/cpu.
func (c *collector) cpu(s *Snapshot) {
	// cpuinfo grows with the CPU count (about 2 KiB each on x86), so it
	// gets a larger limit than other files.
	raw, err := c.fs.ReadFileMax("proc/cpuinfo", 32<<20)
	if err == nil {
		s.CPU = ParseCPUInfo(raw)
	} else {
		c.note("proc/cpuinfo", err)
		s.CPU.Bugs, s.CPU.Flags = []string{}, []string{}
	}
	c.arch(s)
	if v, ok := c.read("sys/devices/system/cpu/online"); ok {
		s.CPU.OnlineList, s.CPU.Online = v, ParseCPUList(v)
	}
	if v, ok := c.read("sys/devices/system/cpu/possible"); ok {
		s.CPU.PossibleList, s.CPU.Possible = v, ParseCPUList(v)
	}
	// Note: read directly; sysfs.FS.IsolatedCPUs parses the list but we keep
	// the kernel's text, and nohz_full has no procfs reader.
	if v, ok := c.readQuiet("sys/devices/system/cpu/isolated"); ok && v != "(null)" {
		s.CPU.Isolated = v
	}
	if v, ok := c.readQuiet("sys/devices/system/cpu/nohz_full"); ok && v != "(null)" {
		s.CPU.NohzFull = v
	}
}

// smt reads /sys/devices/system/cpu/smt/{control,active}.
func (c *collector) smt(s *Snapshot) {
	if v, ok := c.read("sys/devices/system/cpu/smt/control"); ok {
		s.SMT.Control = v
	}
	if v, ok := c.read("sys/devices/system/cpu/smt/active"); ok {
		switch v {
		case "1":
			t := true
			s.SMT.Active = &t
		case "0":
			f := false
			s.SMT.Active = &f
		}
	}
}

// cpufreq reads cpu0's frequency policy and the boost switch.
func (c *collector) cpufreq(s *Snapshot) {
	// Note: sysfs.FS.SystemCpufreq reads every CPU's cpuinfo_cur_freq,
	// which the kernel makes slow on purpose; cpu0's policy is enough here
	// and keeps Collect quick.
	if v, ok := c.readQuiet("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); ok {
		s.Cpufreq.Governor = v
	}
	if v, ok := c.readQuiet("sys/devices/system/cpu/cpu0/cpufreq/scaling_driver"); ok {
		s.Cpufreq.Driver = v
	}
	if v, ok := c.readQuiet("sys/devices/system/cpu/cpufreq/boost"); ok {
		b := v == "1"
		s.Cpufreq.Boost = &b
	} else if v, ok := c.readQuiet("sys/devices/system/cpu/intel_pstate/no_turbo"); ok {
		b := v == "0"
		s.Cpufreq.Boost = &b
	}
}

// arch takes the architecture from the kernel's machine name when it
// says one (proc/sys/kernel/arch, Linux 6.1 and later, below any root;
// uname(2) on the running machine only), else from cpuinfo's layout.
func (c *collector) arch(s *Snapshot) {
	machine, src := "", ""
	if v, ok := c.readQuiet("proc/sys/kernel/arch"); ok && v != "" {
		machine, src = strings.TrimSpace(v), "/proc/sys/kernel/arch"
	} else if c.live {
		machine, src = unameMachine(), "uname"
	}
	s.CPU.Machine = machine
	if a := ArchFromMachine(machine); a != "" {
		s.CPU.Arch, s.CPU.ArchSource = a, src
	} else if s.CPU.Arch != "" {
		s.CPU.ArchSource = "/proc/cpuinfo"
	}
}
