package sysinfo

import "github.com/sectax/sectax/internal/mitigation"

// cmdline reads /proc/cmdline and classifies its mitigation parameters.
func (c *collector) cmdline(s *Snapshot) {
	// Note: procfs.FS.CmdLine splits on white space and so breaks quoted
	// values; the raw text is read here and split with the kernel's rules.
	raw, ok := c.read("proc/cmdline")
	s.Cmdline.Raw = raw
	parsed := mitigation.ParseCmdline(raw)
	s.Cmdline.Tokens = []string{}
	for _, p := range parsed.Params {
		s.Cmdline.Tokens = append(s.Cmdline.Tokens, p.Raw)
	}
	s.Cmdline.InitArgs = parsed.InitArgs
	s.Cmdline.Mitigations = mitigation.Classify(parsed.Params)
	if !ok {
		s.MitigationMode = mitigation.ModeUnknown
		s.MitigationModeReason = "/proc/cmdline could not be read"
		return
	}
	s.MitigationMode, s.MitigationModeReason = s.Cmdline.Mitigations.ModeFor(s.Kernel.Release)
	if kc := s.Kernel.Config; kc != nil && kc.CPUMitigations == "n" {
		s.MitigationMode = mitigation.ModeOff
		s.MitigationModeReason = "the kernel was built without CONFIG_CPU_MITIGATIONS (" + kc.Source +
			"): the mitigations are not compiled in, whatever the command line says (" + s.MitigationModeReason + ")"
	}
	s.Fingerprint.Cmdline = hashText(raw)
}

// readCmdlineForArch reads the classified command line as the kernel of
// the snapshot's architecture does (mitigation.Mitigations.ForArch): the
// attack-vector controls of mitigations= exist on x86 only, so an arm64,
// powerpc or s390 kernel keeps the default where x86 would drop vectors.
// It runs after the CPU is known; a mode already decided by something
// else (an unreadable command line, CONFIG_CPU_MITIGATIONS=n) stays.
func readCmdlineForArch(s *Snapshot) {
	m := s.Cmdline.Mitigations.ForArch(s.CPU.Arch)
	if m.Global == nil || m.Global.Unsupported == "" {
		return
	}
	s.Cmdline.Mitigations = m
	if s.MitigationMode == mitigation.ModeUnknown {
		return
	}
	if kc := s.Kernel.Config; kc != nil && kc.CPUMitigations == "n" {
		return
	}
	s.MitigationMode, s.MitigationModeReason = m.ModeFor(s.Kernel.Release)
}
