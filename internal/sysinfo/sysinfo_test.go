//go:build linux

package sysinfo

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/testutil"
)

// TestCollectFixtures checks the facts each fake tree was built to show.
// (The full documents are golden-tested through `sectax env` in
// internal/cli.)
func TestCollectFixtures(t *testing.T) {
	type want struct {
		release    string
		mode       mitigation.Mode
		vulns      int // -1: directory absent
		counts     mitigation.Counts
		arch       string
		vendor     string
		hypervisor string
		guest      bool
		wsl        int
		smtControl string
		absent     []string
	}
	tests := map[string]want{
		"firecracker-dev": {release: "6.18.44-fc-v657", mode: mitigation.ModeCustom, vulns: 19,
			counts: mitigation.Counts{Mitigated: 4, NotAffected: 15}, arch: "x86", vendor: "GenuineIntel",
			hypervisor: "KVM", guest: true, smtControl: "notsupported"},
		"wsl2-intel-on": {release: "6.18.40.1-microsoft-standard-WSL2", mode: mitigation.ModeOn, vulns: 19,
			counts: mitigation.Counts{Mitigated: 7, NotAffected: 9, Unknown: 3}, arch: "x86", vendor: "GenuineIntel",
			hypervisor: "Hyper-V", guest: true, wsl: 2, smtControl: "on"},
		"wsl2-intel-off": {release: "6.18.40.1-microsoft-standard-WSL2", mode: mitigation.ModeOff, vulns: 19,
			counts: mitigation.Counts{Mitigated: 1, Vulnerable: 6, NotAffected: 9, Unknown: 3}, arch: "x86", vendor: "GenuineIntel",
			hypervisor: "Hyper-V", guest: true, wsl: 2, smtControl: "on"},
		"intel-baremetal": {release: "6.8.0-85-generic", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 12, NotAffected: 2}, arch: "x86", vendor: "GenuineIntel", smtControl: "on"},
		"amd-zen4-baremetal": {release: "6.17.4-200.fc42.x86_64", mode: mitigation.ModeOn, vulns: 19,
			counts: mitigation.Counts{Mitigated: 6, NotAffected: 13}, arch: "x86", vendor: "AuthenticAMD", smtControl: "off"},
		"arm64-graviton3": {release: "6.8.0-1036-aws", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 3, NotAffected: 11}, arch: "arm64", vendor: "ARM",
			hypervisor: "KVM", guest: true, smtControl: "notsupported"},
		"arm64-graviton1-a72": {release: "6.1.0-40-cloud-arm64", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 4, NotAffected: 10}, arch: "arm64", vendor: "ARM",
			hypervisor: "KVM", guest: true, smtControl: "notsupported"},
		"powerpc-power9": {release: "5.14.0-570.12.1.el9_6.ppc64le", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 5, NotAffected: 9}, arch: "powerpc", vendor: "IBM",
			hypervisor: "PowerVM", guest: true, smtControl: "on"},
		"s390x-z15": {release: "6.8.0-85-generic", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 2, NotAffected: 12}, arch: "s390", vendor: "IBM", smtControl: "on"},
		// The platforms of issue 27: each named as its kernel shows it.
		"loongarch-3c6000": {release: "6.18.20-aosc-main", mode: mitigation.ModeOn, vulns: 19,
			counts: mitigation.Counts{Mitigated: 1, NotAffected: 18}, arch: "loongarch", vendor: "Loongson", smtControl: "notsupported"},
		"arm-rpi4-v7l": {release: "6.6.51+rpt-rpi-v7l", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 2, NotAffected: 12}, arch: "arm", vendor: "ARM",
			absent: []string{"/sys/devices/system/cpu/smt/control"}},
		"powerpc-power9-qemu": {release: "5.10.19-200.fc33.ppc64le", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 5, NotAffected: 9}, arch: "powerpc", vendor: "IBM",
			hypervisor: "KVM", guest: true, smtControl: "on"},
		"s390x-z15-zvm": {release: "6.8.0-85-generic", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 2, NotAffected: 12}, arch: "s390", vendor: "IBM",
			hypervisor: "z/VM", guest: true, smtControl: "notsupported"},
		"azure-icelake": {release: "6.8.0-1021-azure", mode: mitigation.ModeOn, vulns: 14,
			counts: mitigation.Counts{Mitigated: 6, NotAffected: 7, Unknown: 1}, arch: "x86", vendor: "GenuineIntel",
			hypervisor: "Hyper-V", guest: true, smtControl: "on"},
		"container-novulns": {release: "4.4.0", mode: mitigation.ModeOn, vulns: -1, arch: "x86", vendor: "GenuineIntel",
			guest: true, absent: []string{"/sys/devices/system/cpu/vulnerabilities", "/sys/devices/system/cpu/smt/control"}},
		"old-4.15-intel": {release: "4.15.0-20-generic", mode: mitigation.ModeOn, vulns: 6,
			counts: mitigation.Counts{Mitigated: 5, Vulnerable: 1}, arch: "x86", vendor: "GenuineIntel",
			absent: []string{"/sys/devices/system/cpu/smt/control"}},
	}
	for name, w := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := Collect(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if s.Live || s.GoVersion != "" || s.Speculation.StoreBypass.Prctl != nil || s.Hypervisor.Signature != "" {
				t.Error("live-only fields filled for a fake root")
			}
			if s.Kernel.Release != w.release || s.MitigationMode != w.mode {
				t.Errorf("release %q mode %s, want %q %s", s.Kernel.Release, s.MitigationMode, w.release, w.mode)
			}
			if w.vulns < 0 {
				if s.Vulnerabilities != nil {
					t.Errorf("vulnerabilities = %v, want nil", s.Vulnerabilities)
				}
			} else if len(s.Vulnerabilities) != w.vulns {
				t.Errorf("%d vulnerabilities, want %d", len(s.Vulnerabilities), w.vulns)
			}
			if diff := cmp.Diff(w.counts, s.VulnerabilityCounts); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if s.CPU.Arch != w.arch || s.CPU.Vendor != w.vendor {
				t.Errorf("cpu %s %s, want %s %s", s.CPU.Arch, s.CPU.Vendor, w.arch, w.vendor)
			}
			if s.Hypervisor.Vendor != w.hypervisor || s.Hypervisor.Guest != w.guest {
				t.Errorf("hypervisor %q guest %v, want %q %v", s.Hypervisor.Vendor, s.Hypervisor.Guest, w.hypervisor, w.guest)
			}
			gotWSL := 0
			if s.WSL != nil {
				gotWSL = s.WSL.Version
			}
			if gotWSL != w.wsl {
				t.Errorf("wsl %d, want %d", gotWSL, w.wsl)
			}
			if s.SMT.Control != w.smtControl {
				t.Errorf("smt control %q, want %q", s.SMT.Control, w.smtControl)
			}
			for _, a := range w.absent {
				if !slices.Contains(s.Absent, a) {
					t.Errorf("absent %v lacks %s", s.Absent, a)
				}
			}
			if !slices.IsSortedFunc(s.Vulnerabilities, func(a, b mitigation.Vulnerability) int { return strings.Compare(a.Name, b.Name) }) {
				t.Error("vulnerabilities not sorted")
			}
			if s.CPU.Online == 0 || s.CPU.Online > s.CPU.Possible || s.CPU.Processors == 0 {
				t.Errorf("cpu counts online %d possible %d processors %d", s.CPU.Online, s.CPU.Possible, s.CPU.Processors)
			}
			if len(s.Unreadable) != 0 {
				t.Errorf("unreadable: %v", s.Unreadable)
			}
		})
	}
}

func TestCollectWSLDetails(t *testing.T) {
	s, err := Collect(filepath.Join("testdata", "wsl2-intel-off"))
	if err != nil {
		t.Fatal(err)
	}
	interop := true
	want := &WSL{
		Version: 2, Distro: "Debian GNU/Linux", KernelFlavor: "microsoft-standard-WSL2",
		WSLConfigPath: "/mnt/c/Users/dev/.wslconfig", WSLConfigExists: true, Interop: &interop,
		WSLConfigSource: "the only user profile under /mnt/*/Users",
		Evidence:        []string{"kernel release 6.18.40.1-microsoft-standard-WSL2", "/run/WSL", "binfmt_misc WSLInterop"},
	}
	if diff := cmp.Diff(want, s.WSL); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The study's off line: the global switch and every toggle.
	g := s.Cmdline.Mitigations.Global
	if g == nil || g.Option != "off" {
		t.Fatalf("global = %+v", g)
	}
	var toggles []string
	for _, r := range s.Cmdline.Mitigations.Params {
		if r.Kind == mitigation.KindToggle {
			toggles = append(toggles, r.Name)
		}
	}
	if want := []string{"debug", "quiet", "loglevel", "audit", "vsyscall"}; !cmp.Equal(toggles, want) {
		t.Errorf("toggles = %v, want %v", toggles, want)
	}
	// The fingerprints tell the on and off trees apart by command line
	// and by vulnerability text, and equal a hash computed here.
	on, err := Collect(filepath.Join("testdata", "wsl2-intel-on"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Fingerprint.Cmdline == on.Fingerprint.Cmdline || s.Fingerprint.Vulnerabilities == on.Fingerprint.Vulnerabilities {
		t.Error("on and off trees share a fingerprint")
	}
	if sum := sha256.Sum256([]byte(s.Cmdline.Raw)); s.Fingerprint.Cmdline != hex.EncodeToString(sum[:]) {
		t.Errorf("cmdline fingerprint %s", s.Fingerprint.Cmdline)
	}
	// old_microcode has no trailing newline in the tree; it must parse.
	for _, v := range s.Vulnerabilities {
		if v.Name == "old_microcode" && (v.State != mitigation.Unknown || v.Mitigation != "running under hypervisor") {
			t.Errorf("old_microcode = %+v", v)
		}
	}
}

// TestCollectUnreadable breaks files in a copy of a tree: a file replaced
// by a directory cannot be read (EISDIR), a chmod 000 file cannot be read
// by a non-root user (EACCES), and a dangling link is absent. None is fatal.
func TestCollectUnreadable(t *testing.T) {
	root := copyFixture(t, "intel-baremetal")
	for _, rel := range []string{"proc/cmdline", "proc/version"} {
		p := filepath.Join(root, rel)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vdir := filepath.Join(root, "sys/devices/system/cpu/vulnerabilities")
	if err := os.Symlink("nowhere", filepath.Join(vdir, "ghost")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(vdir, "mds"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "sys/devices/system/cpu/smt/active")); err != nil {
		t.Fatal(err)
	}
	// A FIFO would block a plain open forever; it must be refused.
	fifo := filepath.Join(root, "proc/sys/kernel/random/boot_id")
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Collect(root)
	if err != nil {
		t.Fatal(err)
	}
	wantUnreadable := []FileError{
		{Path: "/proc/version", Error: "is a directory"},
		{Path: "/proc/cmdline", Error: "is a directory"},
		{Path: "/proc/sys/kernel/random/boot_id", Error: "not a regular file"},
	}
	if os.Geteuid() != 0 {
		wantUnreadable = append(wantUnreadable, FileError{Path: "/sys/devices/system/cpu/vulnerabilities/mds", Error: "permission denied"})
	}
	if diff := cmp.Diff(wantUnreadable, s.Unreadable); diff != "" {
		t.Errorf("unreadable (-want +got):\n%s", diff)
	}
	for _, a := range []string{"/sys/devices/system/cpu/vulnerabilities/ghost", "/sys/devices/system/cpu/smt/active"} {
		if !slices.Contains(s.Absent, a) {
			t.Errorf("absent %v lacks %s", s.Absent, a)
		}
	}
	if s.MitigationMode != mitigation.ModeUnknown || !strings.Contains(s.MitigationModeReason, "could not be read") {
		t.Errorf("mode %s %q", s.MitigationMode, s.MitigationModeReason)
	}
	if len(s.Vulnerabilities) != 15 {
		t.Errorf("%d vulnerabilities, want 15 (14 + the dangling link)", len(s.Vulnerabilities))
	}
	if s.SMT.Control != "on" || s.SMT.Active != nil {
		t.Errorf("smt = %+v", s.SMT)
	}
}

func TestCollectBadRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, root := range []string{filepath.Join(dir, "missing"), file, dir} {
		if _, err := Collect(root); !errors.Is(err, ErrBadRoot) {
			t.Errorf("Collect(%q) error = %v, want ErrBadRoot", root, err)
		}
	}
}

// TestCollectLive reads this machine. It asserts only what holds on every
// Linux: a release, a boot id, the live fields.
func TestCollectLive(t *testing.T) {
	s, err := Collect("/")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Live || s.Kernel.Release == "" || s.BootID == "" || s.GoVersion == "" || s.CPU.Processors == 0 {
		t.Errorf("live snapshot incomplete: %+v", s.Kernel)
	}
	if s.Speculation.StoreBypass.Prctl == nil && s.Speculation.StoreBypass.PrctlError == "" {
		t.Error("prctl neither answered nor failed")
	}
}

func TestParseCPUInfo(t *testing.T) {
	x86 := "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 97\nmodel name\t: AMD Ryzen\nstepping\t: 2\nmicrocode\t: 0xa601209\nflags\t\t: fpu ibpb stibp pcid\nbugs\t\t: spectre_v1 srso\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\n"
	arm := "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd ssbs sb\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n"
	oldArm := "Processor\t: AArch64 Processor rev 4 (aarch64)\nFeatures\t: fp asimd\nCPU implementer\t: 0x51\nCPU part\t: 0x801\n\nprocessor\t: 0\n\nprocessor\t: 1\n"
	noBlank := "processor : 0\nvendor_id : GenuineIntel\nprocessor : 1\nvendor_id : GenuineIntel\nprocessor : 2\n"
	tests := []struct {
		name, in string
		want     CPU
	}{
		{"x86", x86, CPU{Arch: "x86", Vendor: "AuthenticAMD", ModelName: "AMD Ryzen", Family: "25", Model: "97", Stepping: "2",
			Microcode: "0xa601209", Processors: 2, Bugs: []string{"spectre_v1", "srso"}, Flags: []string{"pcid", "ibpb", "stibp"}, FlagCount: 4}},
		{"arm64", arm, CPU{Arch: "arm64", Vendor: "ARM", ModelName: "Neoverse-N1", Family: "8", Model: "0xd0c", Stepping: "r3p1",
			Processors: 1, Bugs: []string{}, Flags: []string{"ssbs", "sb"}, FlagCount: 4}},
		{"old arm header", oldArm, CPU{Arch: "arm64", Vendor: "Qualcomm", Model: "0x801", Processors: 2, Bugs: []string{}, Flags: []string{}, FlagCount: 2}},
		{"no blank lines", noBlank, CPU{Arch: "x86", Vendor: "GenuineIntel", Processors: 3, Bugs: []string{}, Flags: []string{}}},
		{"empty", "", CPU{}},
		{"garbage", "hello\nworld: 1\n", CPU{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseCPUInfo([]byte(tt.in))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// FuzzParseCPUInfo: any text parses without panic and the counts stay
// sane.
func FuzzParseCPUInfo(f *testing.F) {
	for _, name := range []string{"firecracker-dev", "arm64-graviton3", "old-4.15-intel", "loongarch-3c6000", "arm-rpi4-v7l", "powerpc-power9-qemu", "s390x-z15-zvm"} {
		b, err := os.ReadFile(filepath.Join("testdata", name, "proc", "cpuinfo"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("processor:\n\n:\nprocessor : x\nFeatures"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := ParseCPUInfo(b)
		if c.Processors < 0 || c.Processors > len(b) || len(c.Flags) > c.FlagCount || len(c.Flags) > len(RelevantFlags) {
			t.Fatalf("implausible summary %+v", c)
		}
		for _, fl := range c.Flags {
			if !slices.Contains(RelevantFlags, fl) {
				t.Fatalf("flag %q not relevant", fl)
			}
		}
	})
}

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string]int{
		"0-1": 2, "0": 1, "0-3,8,10-11\n": 7, "": 0, "3-1": 0, "a": 0, "0-": 0, "0,,1": 0, "99999999": 0,
	} {
		if got := ParseCPUList(in); got != want {
			t.Errorf("ParseCPUList(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestWSLKernel(t *testing.T) {
	for _, tt := range []struct {
		in      string
		version int
		flavor  string
	}{
		{"6.6.87.2-microsoft-standard-WSL2", 2, "microsoft-standard-WSL2"},
		{"5.10.16.3-microsoft-standard", 2, "microsoft-standard"},
		{"4.4.0-19041-Microsoft", 1, "Microsoft"},
		{"6.18.44-fc-v657", 0, ""},
		{"6.8.0-85-generic", 0, ""},
	} {
		v, f := WSLKernel(tt.in)
		if v != tt.version || f != tt.flavor {
			t.Errorf("WSLKernel(%q) = %d %q, want %d %q", tt.in, v, f, tt.version, tt.flavor)
		}
	}
}

// wslVersionOutput is what `wsl.exe --version` prints (WSL 2.6.3).
const wslVersionOutput = "WSL version: 2.6.3.0\r\nKernel version: 6.6.87.2-1\r\nWSLg version: 1.0.71\r\nMSRDC version: 1.2.6353\r\nDirect3D version: 1.611.1-81528511\r\nDXCore version: 10.0.26100.1-240331-1435.ge-release\r\nWindows version: 10.0.26100.6584\r\n"

func utf16le(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xff, 0xfe)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func TestDecodeAndParseWSLVersion(t *testing.T) {
	for name, in := range map[string][]byte{
		"utf16le":     utf16le(wslVersionOutput, false),
		"utf16le bom": utf16le(wslVersionOutput, true),
		"utf8":        []byte(wslVersionOutput),
		"utf8 bom":    append([]byte("\ufeff"), wslVersionOutput...),
	} {
		text := DecodeConsoleText(in)
		if strings.ContainsAny(text, "\r\x00") || !strings.HasPrefix(text, "WSL version: 2.6.3.0\n") {
			t.Errorf("%s: decoded %q", name, text)
		}
		pkg, win := ParseWSLVersion(text)
		if pkg != "2.6.3.0" || win != "10.0.26100.6584" {
			t.Errorf("%s: ParseWSLVersion = %q %q", name, pkg, win)
		}
	}
	// Localised labels do not matter; wslinfo prints just the version.
	if pkg, win := ParseWSLVersion("Version de WSL : 2.5.10.0\nVersion de Windows : 10.0.22631.4890\n"); pkg != "2.5.10.0" || win != "10.0.22631.4890" {
		t.Errorf("french: %q %q", pkg, win)
	}
	if pkg, win := ParseWSLVersion("2.6.3\n"); pkg != "2.6.3" || win != "" {
		t.Errorf("wslinfo: %q %q", pkg, win)
	}
	if pkg, _ := ParseWSLVersion("Invalid command line option: --version\n"); pkg != "" {
		t.Errorf("old wsl.exe: %q", pkg)
	}
}

// FuzzParseWSLVersion: decoding and parsing any bytes never panics.
func FuzzParseWSLVersion(f *testing.F) {
	f.Add(utf16le(wslVersionOutput, true))
	f.Add([]byte(wslVersionOutput))
	f.Add([]byte{0xff, 0xfe, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		text := DecodeConsoleText(b)
		if strings.ContainsAny(text, "\r\x00") {
			t.Fatalf("decoded text keeps CR or NUL: %q", text)
		}
		pkg, _ := ParseWSLVersion(text)
		if pkg != "" && !strings.Contains(text, pkg) {
			t.Fatalf("version %q not in text", pkg)
		}
	})
}

func TestOSRelease(t *testing.T) {
	osr := "NAME=\"Ubuntu\"\nPRETTY_NAME='Ubuntu 24.04 LTS'\nID=ubuntu\n"
	if got := OSReleaseValue(osr, "PRETTY_NAME"); got != "Ubuntu 24.04 LTS" {
		t.Errorf("PRETTY_NAME = %q", got)
	}
}

func TestHypervisorNames(t *testing.T) {
	if got := signatureString(0x7263694d, 0x666f736f, 0x76482074); got != "Microsoft Hv" {
		t.Errorf("signatureString = %q", got)
	}
	if got := signatureString(0x4b4d564b, 0x564b4d56, 0x0000004d); got != "KVMKVMKVM" {
		t.Errorf("signatureString = %q", got)
	}
	for sig, want := range map[string]string{"Microsoft Hv": "Hyper-V", "KVMKVMKVM": "KVM", "XenVMMXenVMM": "Xen", "VMwareVMware": "VMware", "nope": ""} {
		if got := HypervisorFromSignature(sig); got != want {
			t.Errorf("HypervisorFromSignature(%q) = %q, want %q", sig, got, want)
		}
	}
	for _, tt := range []struct{ vendor, product, version, want string }{
		{"Microsoft Corporation", "Virtual Machine", "Hyper-V UEFI Release v4.1", "Hyper-V"},
		{"Microsoft Corporation", "Surface Laptop 5", "124I:00037T:000M:0300000D:11B:00F", ""},
		{"QEMU", "Standard PC (Q35 + ICH9, 2009)", "pc-q35-8.2", "KVM"},
		{"Amazon EC2", "c7g.large", "", "KVM"},
		{"Amazon EC2", "m7i.metal-24xl", "", ""},
		{"Dell Inc.", "PowerEdge R630", "", ""},
	} {
		if got := HypervisorFromDMI(tt.vendor, tt.product, tt.version); got != tt.want {
			t.Errorf("HypervisorFromDMI(%q, %q, %q) = %q, want %q", tt.vendor, tt.product, tt.version, got, tt.want)
		}
	}
}

func TestHypervisorFromClocksource(t *testing.T) {
	for cs, want := range map[string]string{"kvm-clock": "KVM", "hyperv_clocksource_tsc_page": "Hyper-V", "xen": "Xen", "tsc": "", "arch_sys_counter": ""} {
		if got := HypervisorFromClocksource(cs); got != want {
			t.Errorf("HypervisorFromClocksource(%q) = %q, want %q", cs, got, want)
		}
	}
}

func TestPreemptionFromVersion(t *testing.T) {
	for v, want := range map[string]string{
		"Linux version 6.18.44 #1 SMP PREEMPT_DYNAMIC @0":    "dynamic",
		"Linux version 6.6.0-rt #1 SMP PREEMPT_RT Mon":       "rt",
		"Linux version 5.4.0 #1 SMP PREEMPT Tue":             "full",
		"Linux version 4.15.0-20-generic #21-Ubuntu SMP Tue": "",
	} {
		if got := PreemptionFromVersion(v); got != want {
			t.Errorf("PreemptionFromVersion(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestSpecBitsAndSelected(t *testing.T) {
	for v, want := range map[int][]string{0: {"not_affected"}, 2: {"enable"}, 3: {"prctl", "enable"}, 8: {"force_disable"}, 0x14: {"disable", "disable_noexec"}} {
		if got := SpecBits(v); !cmp.Equal(got, want) {
			t.Errorf("SpecBits(%d) = %v, want %v", v, got, want)
		}
	}
	for in, want := range map[string]string{"always [madvise] never": "madvise", "[always] madvise never": "always", "never": "never"} {
		if got := selected(in); got != want {
			t.Errorf("selected(%q) = %q", in, got)
		}
	}
}

// TestCPUInfoGolden records the CPU summary of every fixture in one file a
// person can review.
func TestCPUInfoGolden(t *testing.T) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "fuzz" || e.Name() == "load" { // load: the /proc trees of ReadLoad, no machines
			continue
		}
		raw, err := os.ReadFile(filepath.Join("testdata", e.Name(), "proc", "cpuinfo"))
		if err != nil {
			t.Fatal(err)
		}
		c := ParseCPUInfo(raw)
		b.WriteString(e.Name() + ": " + strings.Join([]string{c.Arch, c.Vendor, c.ModelName, c.Family, c.Model, c.Stepping, c.Microcode}, " | ") +
			"\n  bugs: " + strings.Join(c.Bugs, " ") + "\n  flags: " + strings.Join(c.Flags, " ") + "\n")
	}
	testutil.Golden(t, filepath.Join("testdata", "cpuinfo.golden"), []byte(b.String()))
}

func TestParseKernelConfig(t *testing.T) {
	text := "# comment\nCONFIG_CPU_MITIGATIONS=y\n# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\n" +
		"CONFIG_HZ=250\nCONFIG_DEFAULT_HOSTNAME=\"(none)\"\n# CONFIG_MITIGATION_SLS is not set\nCONFIG_PREEMPT_RCU=y\n"
	want := KernelConfig{CPUMitigations: "y", Preempt: "voluntary", PreemptDynamic: true, Options: map[string]string{
		"CONFIG_CPU_MITIGATIONS": "y", "CONFIG_PREEMPT_NONE": "n", "CONFIG_PREEMPT_VOLUNTARY": "y",
		"CONFIG_PREEMPT_DYNAMIC": "y", "CONFIG_HZ": "250", "CONFIG_MITIGATION_SLS": "n"}}
	if diff := cmp.Diff(want, ParseKernelConfig([]byte(text))); diff != "" {
		t.Errorf("plain (-want +got):\n%s", diff)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	if diff := cmp.Diff(want, ParseKernelConfig(gz.Bytes())); diff != "" {
		t.Errorf("gzip (-want +got):\n%s", diff)
	}
	old := ParseKernelConfig([]byte("CONFIG_SPECULATION_MITIGATIONS=y\nCONFIG_PREEMPT=y\n"))
	if old.CPUMitigations != "y" || old.Preempt != "full" || old.PreemptDynamic {
		t.Errorf("6.8-style config: %+v", old)
	}
	if bad := ParseKernelConfig([]byte{0x1f, 0x8b, 1, 2}); bad.Options == nil || len(bad.Options) != 0 {
		t.Errorf("broken gzip: %+v", bad)
	}
}

// FuzzParseKernelConfig: any bytes (plain or claiming to be gzip) parse
// without panic.
func FuzzParseKernelConfig(f *testing.F) {
	f.Add([]byte("CONFIG_CPU_MITIGATIONS=y\n# CONFIG_PREEMPT is not set\n"))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		kc := ParseKernelConfig(b)
		if kc.Options == nil {
			t.Fatal("nil options")
		}
		for k := range kc.Options {
			if !relevantConfig(k) {
				t.Fatalf("kept %q", k)
			}
		}
	})
}

// TestCollectNoMitigationsBuilt: a kernel built without
// CONFIG_CPU_MITIGATIONS is off whatever its command line asks.
func TestCollectNoMitigationsBuilt(t *testing.T) {
	root := copyFixture(t, "wsl2-intel-on")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("# CONFIG_CPU_MITIGATIONS is not set\nCONFIG_PREEMPT_NONE=y\n"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(root, "proc", "config.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Collect(root)
	if err != nil {
		t.Fatal(err)
	}
	if s.MitigationMode != mitigation.ModeOff || !strings.Contains(s.MitigationModeReason, "without CONFIG_CPU_MITIGATIONS") {
		t.Errorf("mode %s: %s", s.MitigationMode, s.MitigationModeReason)
	}
	// /proc/version says PREEMPT_DYNAMIC without the mode; the config
	// names it.
	if s.Kernel.Preemption != "none" || s.Kernel.PreemptionSource != "config" {
		t.Errorf("preemption %q from %q", s.Kernel.Preemption, s.Kernel.PreemptionSource)
	}
}

// copyFixture is a copy of the fixture testdata/name in a temporary
// folder.
func copyFixture(t *testing.T, name string) string {
	dst := t.TempDir()
	testutil.CopyTree(t, filepath.Join("testdata", name), dst)
	return dst
}

// FuzzStatusValue: any status text gives a trimmed value of a key that is
// there, and never a value for a key that is not.
func FuzzStatusValue(f *testing.F) {
	f.Add("Name:\tcat\nSpeculation_Store_Bypass:\tthread vulnerable\nSeccomp:\t0\n", "Speculation_Store_Bypass")
	f.Add("Seccomp 2\n:\n", "Seccomp")
	f.Fuzz(func(t *testing.T, text, key string) {
		v, ok := StatusValue(text, key)
		if !ok && v != "" {
			t.Fatalf("value %q without the key", v)
		}
		if ok && (v != strings.TrimSpace(v) || !strings.Contains(text, key+":")) {
			t.Fatalf("StatusValue(%q, %q) = %q", text, key, v)
		}
	})
}
