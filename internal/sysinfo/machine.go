package sysinfo

import "github.com/sectax/sectax/internal/mitigation"

// Machine is the snapshot in the knowledge base's words: what the model
// (mitigation.Knowledge.Predict), the alternatives and the notes decide
// on. Every package that asks the model about this machine builds it here.
func (s *Snapshot) Machine() mitigation.Machine {
	platform := "native"
	switch {
	case s.WSL != nil:
		platform = "wsl"
	case s.Hypervisor.Guest:
		platform = "vm"
	}
	m := mitigation.NewMachine(s.CPU.Arch, s.CPU.Vendor, s.CPU.Family, s.Kernel.Release, platform, s.Vulnerabilities)
	m.NoGlobalSwitch = s.Kernel.Config != nil && s.Kernel.Config.CPUMitigations == "n"
	m.Version = s.Kernel.Version
	return m
}
