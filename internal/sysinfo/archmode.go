package sysinfo

import "github.com/sectax/sectax/internal/mitigation"

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
	s.MitigationMode, s.MitigationModeReason = m.Mode()
}
