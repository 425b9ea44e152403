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

// hypervisor finds what the machine runs on from every source the kernel
// exposes below the root (and CPUID on the running machine), recording
// each sign with the file or leaf it came from. The first source that
// names a hypervisor names it, in this order: CPUID, /sys/hypervisor,
// the device tree's hypervisor node, DMI, VMBus, s390's /proc/sysinfo and
// cpuinfo, powerpc's cpuinfo platform and model, a PVM kernel parameter,
// a paravirtual clock source; then, as hints only (Hypervisor.Hint), the
// kernel release's cloud flavour and Firecracker's init argument. A guest
// that no source names has Vendor "" (shown as unknown).
func (c *collector) hypervisor(s *Snapshot) {
	h := &s.Hypervisor
	set := func(vendor, source string) {
		if h.Vendor == "" && vendor != "" {
			h.Vendor, h.Source = vendor, source
		}
	}
	sign := func(evidence string) {
		h.Guest = true
		h.Evidence = append(h.Evidence, evidence)
	}
	if c.live {
		if p, ok := cpuidProbe(); ok && p.Present {
			name, evidence, outer := HypervisorFromCPUID(p, s.CPU.ModelName)
			for _, e := range evidence {
				sign(e)
			}
			if len(p.Leaves) > 0 {
				h.Signature = p.Leaves[0].Signature
			}
			if outer {
				h.Outer = name
			} else {
				set(name, "cpuid")
			}
		}
	}
	if v, ok := c.readQuiet("sys/hypervisor/type"); ok && v != "" {
		sign("/sys/hypervisor/type: " + v)
		switch {
		case v == "xen":
			set("Xen", "/sys/hypervisor")
		case strings.Contains(v, "z/VM"):
			set("z/VM", "/sys/hypervisor")
		}
	}
	if slices.Contains(s.CPU.Flags, "hypervisor") {
		sign("cpuinfo flag hypervisor")
	}
	c.deviceTree(s, sign, set)
	if c.isDir(dmiDir) {
		vendor, product, version := c.dmi("sys_vendor"), c.dmi("product_name"), c.dmi("product_version")
		name := HypervisorFromDMI(vendor, product, version)
		if bios := c.dmi("bios_vendor"); name == "" && bios != "" {
			if name = HypervisorFromDMI(bios, "", ""); name != "" {
				vendor = "bios_vendor " + bios
			}
		}
		if name != "" {
			sign(fmt.Sprintf("dmi: %s / %s / %s", vendor, product, version))
			set(name, "dmi")
		}
	}
	if entries, err := c.readDir("sys/bus/vmbus/devices"); err == nil && len(entries) > 0 {
		sign("/sys/bus/vmbus/devices")
		set("Hyper-V", "vmbus")
	}
	c.s390(s, sign, set)
	c.pseries(s, sign, set)
	for _, t := range s.Cmdline.Tokens {
		// A PVM guest's own parameters (pvm_no_zero_page=…): the kernel
		// says "Hypervisor detected: PVM" only in its log, which is
		// not read; PVM is KVM-based and shows kvm-clock too.
		if strings.HasPrefix(t, "pvm_") {
			sign("kernel parameter " + t + " (a PVM guest's)")
			set("PVM", "kernel command line")
			h.Hint = h.Source == "kernel command line"
			break
		}
	}
	// Paravirtual clock sources name their hypervisor (kvm-clock,
	// hyperv_clocksource_tsc_page, xen).
	for _, cs := range s.Kernel.ClocksourcesAvailable {
		if name := HypervisorFromClocksource(cs); name != "" {
			sign("clocksource " + cs)
			set(name, "clocksource")
		}
	}
	for _, v := range s.Vulnerabilities {
		for _, str := range []string{"SMT Host state unknown", "Dependent on hypervisor status", "running under hypervisor"} {
			if strings.Contains(v.Raw, str) {
				sign("vulnerabilities/" + v.Name + ": " + str)
			}
		}
	}
	c.hints(s)
}

// hints adds what only suggests a platform: the kernel release's cloud
// flavour and Firecracker's init argument. They name a vendor only for a
// machine other evidence already shows to be a guest, and say so (Hint).
func (c *collector) hints(s *Snapshot) {
	h := &s.Hypervisor
	hint := func(platform, vendor, evidence string) {
		if h.Platform == "" {
			h.Platform = platform
		}
		h.Evidence = append(h.Evidence, evidence)
		if h.Vendor == "" && vendor != "" && h.Guest {
			h.Vendor, h.Source, h.Hint = vendor, "kernel release", true
		}
	}
	if platform, vendor := CloudFromRelease(s.Kernel.Release); platform != "" {
		hint(platform, vendor, "kernel release "+s.Kernel.Release+" ("+platform+" kernel flavour; a hint)")
	}
	if slices.Contains(s.Cmdline.InitArgs, "--firecracker-init") {
		// Firecracker runs on KVM only; its init argument is the one sign
		// a Firecracker guest's kernel shows of it below a root.
		h.Guest = true
		if h.Platform == "" {
			h.Platform = "Firecracker"
		}
		h.Evidence = append(h.Evidence, "init argument --firecracker-init (a Firecracker microVM; a hint)")
		if h.Vendor == "" {
			h.Vendor, h.Source, h.Hint = "KVM", "kernel command line", true
		}
	}
}

// deviceTree reads the flattened device tree's hypervisor node (arm,
// arm64, powerpc, riscv): its compatible strings name the hypervisor
// ("linux,kvm" from QEMU under KVM, "xen,xen").
func (c *collector) deviceTree(s *Snapshot, sign func(string), set func(string, string)) {
	const node = "proc/device-tree/hypervisor/compatible"
	v, ok := c.readQuiet(node)
	if !ok || v == "" {
		return
	}
	compat := strings.Split(strings.Trim(v, "\x00"), "\x00")
	sign("/" + node + ": " + strings.Join(compat, ", "))
	for _, cp := range compat {
		switch {
		case cp == "linux,kvm":
			set("KVM", "/proc/device-tree/hypervisor")
		case strings.HasPrefix(cp, "xen,xen"):
			set("Xen", "/proc/device-tree/hypervisor")
		}
	}
}

// s390 reads the two s390 signs: cpuinfo's "processor N: version = FF"
// (the CPU id's version code is FF under a hypervisor below the LPAR,
// arch/s390/kernel/processor.c show_cpuinfo prints it) and /proc/sysinfo
// (arch/s390/kernel/sysinfo.c), whose "VM00 Control Program" line names
// z/VM or KVM and whose "LPAR Name" line the logical partition.
func (c *collector) s390(s *Snapshot, sign func(string), set func(string, string)) {
	if s.CPU.Arch != "s390" {
		return
	}
	h := &s.Hypervisor
	if raw, err := c.fs.ReadFileMax("proc/cpuinfo", 32<<20); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "processor ") && strings.Contains(line, "version = FF") {
				sign("/proc/cpuinfo: " + strings.Join(strings.Fields(line), " ") + " (version FF: a guest below the LPAR)")
				break
			}
		}
	}
	si, ok := c.readQuiet("proc/sysinfo")
	if !ok {
		return
	}
	if cp, ok := StatusValue(si, "VM00 Control Program"); ok && cp != "" {
		cp = strings.Join(strings.Fields(cp), " ")
		sign("/proc/sysinfo: VM00 Control Program: " + cp)
		switch {
		case strings.HasPrefix(cp, "z/VM"):
			set("z/VM", "/proc/sysinfo")
			if h.Vendor == "z/VM" {
				h.Platform = cp
			}
		case strings.HasPrefix(cp, "KVM"):
			set("KVM", "/proc/sysinfo")
		}
	}
	if lpar, ok := StatusValue(si, "LPAR Name"); ok && h.Platform == "" {
		h.Platform = "LPAR " + strings.TrimSpace(lpar)
		h.Evidence = append(h.Evidence, "/proc/sysinfo: LPAR Name: "+strings.TrimSpace(lpar))
	}
}

// pseries reads powerpc's cpuinfo summary (arch/powerpc/kernel/
// setup-common.c show_cpuinfo_summary and pseries_show_cpuinfo):
// "platform : pSeries" is the PAPR platform, which runs only as a guest
// (an LPAR of PowerVM, or QEMU/KVM), "PowerNV" the bare machine; "model :
// IBM pSeries (emulated by qemu)" is QEMU's spapr machine.
func (c *collector) pseries(s *Snapshot, sign func(string), set func(string, string)) {
	if s.CPU.Arch != "powerpc" {
		return
	}
	raw, err := c.fs.ReadFileMax("proc/cpuinfo", 32<<20)
	if err != nil {
		return
	}
	var platform, model string
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(line, ":")
		switch k = strings.TrimSpace(k); {
		case !ok:
		case k == "platform":
			platform = strings.TrimSpace(v)
		case k == "model":
			model = strings.TrimSpace(v)
		}
	}
	if platform != "pSeries" {
		return
	}
	h := &s.Hypervisor
	sign("/proc/cpuinfo: platform " + platform + ", model " + model)
	if strings.Contains(model, "emulated by qemu") {
		set("QEMU", "/proc/cpuinfo")
		h.Platform = "pSeries (QEMU)"
		return
	}
	set("PowerVM", "/proc/cpuinfo")
	if h.Platform == "" {
		h.Platform = "pSeries LPAR"
	}
}

// dmiDir holds the firmware's DMI strings.
const dmiDir = "sys/class/dmi/id"

// dmi is one DMI string ("" when absent or unreadable).
func (c *collector) dmi(name string) string {
	v, _ := c.readQuiet(dmiDir + "/" + name)
	return strings.TrimSpace(v)
}

// cpuidInfo is what CPUID says of a hypervisor to this process.
type cpuidInfo struct {
	Present bool        // leaf 1 ECX bit 31
	Leaves  []cpuidLeaf // the hypervisor leaf ranges with a signature
	Brand   string      // leaves 0x80000002-4
}

// cpuidLeaf is one hypervisor leaf range and its vendor signature.
type cpuidLeaf struct {
	Leaf      uint32
	Signature string
}

// HypervisorFromCPUID names the hypervisor CPUID shows to this process
// and gives the evidence. A hypervisor that offers Hyper-V's interface at
// 0x40000000 and its own signature at a later range is the later one (KVM
// or Xen with Hyper-V enlightenments). outer is true when CPUID was
// answered below the kernel's own hypervisor: CPUID's brand string is not
// the model name the kernel printed in /proc/cpuinfo (kernelModel). A PVM
// guest is such a case: its kernel asks CPUID through PVM's synthetic
// instruction, while an unprivileged CPUID, not intercepted, reaches the
// hypervisor PVM itself runs under.
func HypervisorFromCPUID(p cpuidInfo, kernelModel string) (name string, evidence []string, outer bool) {
	outer = p.Brand != "" && kernelModel != "" && p.Brand != strings.TrimSpace(kernelModel)
	for _, l := range p.Leaves {
		e := fmt.Sprintf("cpuid leaf %#x: %q", l.Leaf, l.Signature)
		if outer {
			e += fmt.Sprintf(" (answered below the kernel's hypervisor: CPUID's brand %q is not cpuinfo's model name %q)", p.Brand, strings.TrimSpace(kernelModel))
		}
		evidence = append(evidence, e)
		if n := HypervisorFromSignature(l.Signature); n != "" && (name == "" || name == "Hyper-V") {
			name = n
		}
	}
	if len(p.Leaves) == 0 {
		evidence = append(evidence, "cpuid leaf 1: hypervisor bit set, no signature")
	}
	return name, evidence, outer
}

// printable reports whether a signature is printable ASCII.
func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			return false
		}
	}
	return true
}

// cleanBrand turns CPUID's brand bytes into the text the kernel prints
// (NULs dropped, spaces trimmed).
func cleanBrand(b []byte) string {
	if i := slices.Index(b, 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// CloudFromRelease names the cloud a kernel release's flavour is built for
// ("-azure", "-aws", "-gcp", "-oracle", Ubuntu's and others' naming) and
// the hypervisor that cloud runs its guests on ("" when it has several):
// a hint, since such a kernel can boot elsewhere.
func CloudFromRelease(release string) (platform, vendor string) {
	r := strings.ToLower(release)
	has := func(flavour string) bool {
		i := strings.Index(r, "-"+flavour)
		if i < 0 {
			return false
		}
		rest := r[i+1+len(flavour):]
		return rest == "" || rest[0] == '-' || rest[0] == '.' || rest[0] == '+'
	}
	switch {
	case has("azure") || has("azure-fde") || has("azure-cvm"):
		return "Azure", "Hyper-V"
	case has("aws"):
		return "AWS", ""
	case has("gcp") || has("gke"):
		return "Google Cloud", "KVM"
	case has("oracle") || has("uek"):
		return "Oracle Cloud", ""
	}
	return "", ""
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
	case "OpenBSDVMM58":
		return "OpenBSD vmm"
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
	case vendor == "Microsoft Corporation" && product == "Virtual Machine":
		// Hyper-V and Azure VMs (product_version "7.0" on Azure's
		// generation 2 VMs); Surface laptops name their product.
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
