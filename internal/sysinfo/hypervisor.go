package sysinfo

import (
	"fmt"
	"slices"
	"strings"
)

// signatureString turns the three registers of CPUID leaf 0x40000000 into
// the vendor signature, little-endian bytes in EBX, ECX, EDX order, with
// NULs and surrounding spaces removed.
func signatureString(ebx, ecx, edx uint32) string {
	var b [12]byte
	for i, r := range []uint32{ebx, ecx, edx} {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(r), byte(r>>8), byte(r>>16), byte(r>>24)
	}
	return strings.TrimSpace(strings.TrimRight(string(b[:]), "\x00"))
}

// hypervisor finds what the machine runs on, from every source below the
// root (and CPUID on the running machine), recording each sign.
func (c *collector) hypervisor(s *Snapshot) {
	h := &s.Hypervisor
	set := func(vendor, source string) {
		if h.Vendor == "" && vendor != "" {
			h.Vendor, h.Source = vendor, source
		}
	}
	if c.live {
		if present, sig, ok := cpuidHypervisor(); ok && present {
			h.Guest = true
			h.Signature = sig
			h.Evidence = append(h.Evidence, fmt.Sprintf("cpuid leaf 0x40000000: %q", sig))
			set(HypervisorFromSignature(sig), "cpuid")
		}
	}
	if v, ok := c.readQuiet("sys/hypervisor/type"); ok && v != "" {
		h.Guest = true
		h.Evidence = append(h.Evidence, "/sys/hypervisor/type: "+v)
		if v == "xen" {
			set("Xen", "/sys/hypervisor")
		}
	}
	if slices.Contains(s.CPU.Flags, "hypervisor") {
		h.Guest = true
		h.Evidence = append(h.Evidence, "cpuinfo flag hypervisor")
	}
	if c.isDir(dmiDir) {
		vendor, product, version := c.dmi("sys_vendor"), c.dmi("product_name"), c.dmi("product_version")
		if name := HypervisorFromDMI(vendor, product, version); name != "" {
			h.Guest = true
			h.Evidence = append(h.Evidence, fmt.Sprintf("dmi: %s / %s / %s", vendor, product, version))
			set(name, "dmi")
		}
	}
	if entries, err := c.readDir("sys/bus/vmbus/devices"); err == nil && len(entries) > 0 {
		h.Guest = true
		h.Evidence = append(h.Evidence, "/sys/bus/vmbus/devices")
		set("Hyper-V", "vmbus")
	}
	// Paravirtual clock sources name their hypervisor (kvm-clock,
	// hyperv_clocksource_tsc_page, xen).
	for _, cs := range s.Kernel.ClocksourcesAvailable {
		if name := HypervisorFromClocksource(cs); name != "" {
			h.Guest = true
			h.Evidence = append(h.Evidence, "clocksource "+cs)
			set(name, "clocksource")
		}
	}
	for _, v := range s.Vulnerabilities {
		for _, sign := range []string{"SMT Host state unknown", "Dependent on hypervisor status", "running under hypervisor"} {
			if strings.Contains(v.Raw, sign) {
				h.Guest = true
				h.Evidence = append(h.Evidence, "vulnerabilities/"+v.Name+": "+sign)
			}
		}
	}
}

// dmiDir holds the firmware's DMI strings.
const dmiDir = "sys/class/dmi/id"

// dmi is one DMI string ("" when absent or unreadable).
func (c *collector) dmi(name string) string {
	v, _ := c.readQuiet(dmiDir + "/" + name)
	return strings.TrimSpace(v)
}

// HypervisorFromSignature names the hypervisor of a CPUID leaf 0x40000000
// signature; "" when the signature is unknown.
func HypervisorFromSignature(sig string) string {
	switch strings.TrimRight(strings.TrimSpace(sig), "\x00") {
	case "Microsoft Hv":
		return "Hyper-V"
	case "KVMKVMKVM":
		return "KVM"
	case "XenVMMXenVMM":
		return "Xen"
	case "VMwareVMware":
		return "VMware"
	case "VBoxVBoxVBox":
		return "VirtualBox"
	case "TCGTCGTCGTCG":
		return "QEMU"
	case "lrpepyh  vr", "prl hyperv", "lrpepyh vr":
		return "Parallels"
	case "bhyve bhyve":
		return "bhyve"
	case "ACRNACRNACRN":
		return "ACRN"
	case "QNXQVMBSQG":
		return "QNX"
	case "Linux KVM Hv":
		return "KVM"
	case "SRESRESRESRE":
		return "Lockheed Martin SRE"
	case "Apple VZ", "AppleVZ":
		return "Apple Virtualization"
	}
	return ""
}

// HypervisorFromDMI names the hypervisor from DMI sys_vendor, product_name
// and product_version; "" when they name none. Hyper-V is keyed on
// product_version because Surface laptops also say "Microsoft Corporation"
// (systemd#21468).
func HypervisorFromDMI(vendor, product, version string) string {
	switch {
	case strings.Contains(version, "Hyper-V"):
		return "Hyper-V"
	case strings.HasPrefix(vendor, "QEMU") || strings.HasPrefix(product, "KVM") || strings.HasPrefix(product, "Standard PC"):
		return "KVM"
	case strings.HasPrefix(vendor, "VMware"):
		return "VMware"
	case strings.HasPrefix(vendor, "innotek") || product == "VirtualBox":
		return "VirtualBox"
	case strings.HasPrefix(vendor, "Xen"):
		return "Xen"
	case strings.HasPrefix(vendor, "Amazon EC2") && !strings.Contains(product, ".metal"):
		return "KVM"
	case strings.HasPrefix(vendor, "Google") && strings.HasPrefix(product, "Google Compute Engine"):
		return "KVM"
	case strings.HasPrefix(vendor, "Parallels"):
		return "Parallels"
	case strings.HasPrefix(vendor, "Firecracker") || strings.HasPrefix(product, "Firecracker"):
		return "KVM"
	}
	return ""
}

// HypervisorFromClocksource names the hypervisor behind a paravirtual
// clock source; "" for a hardware one (tsc, hpet, acpi_pm).
func HypervisorFromClocksource(cs string) string {
	switch {
	case cs == "kvm-clock":
		return "KVM"
	case strings.HasPrefix(cs, "hyperv_clocksource"):
		return "Hyper-V"
	case cs == "xen":
		return "Xen"
	case cs == "vmware-tsc" || cs == "vmware-clock":
		return "VMware"
	}
	return ""
}
