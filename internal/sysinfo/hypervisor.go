package sysinfo

import "strings"

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
