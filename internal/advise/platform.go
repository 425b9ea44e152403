package advise

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/wslconfig"
)

// PlatformKind names how a machine's kernel command line is configured.
type PlatformKind string

// The platforms advise knows (docs/wsl.md, docs/native.md).
const (
	// PlatformWSL is a WSL 2 guest: %UserProfile%\.wslconfig kernelCommandLine.
	PlatformWSL PlatformKind = "wsl2"
	// PlatformGRUBDebian is GRUB configured through /etc/default/grub and update-grub.
	PlatformGRUBDebian PlatformKind = "grub-debian"
	// PlatformGRUB is GRUB configured through /etc/default/grub and grub2-mkconfig.
	PlatformGRUB PlatformKind = "grub"
	// PlatformGrubby is GRUB with BLS entries managed by grubby (Fedora, RHEL).
	PlatformGrubby PlatformKind = "grubby"
	// PlatformSystemdBoot is systemd-boot / kernel-install with /etc/kernel/cmdline.
	PlatformSystemdBoot PlatformKind = "systemd-boot"
	// PlatformKernelstub is Pop!_OS's kernelstub.
	PlatformKernelstub PlatformKind = "kernelstub"
	// PlatformUnknown is anything else (a VM whose command line the VMM
	// sets, a container, an unrecognised boot loader).
	PlatformUnknown PlatformKind = "unknown"
)

// Platform is what Probe found about how the command line is configured.
type Platform struct {
	Kind PlatformKind `json:"kind"`
	// Name is a human description ("GRUB on Ubuntu 24.04.3 LTS").
	Name string `json:"name"`
	// Evidence lists the files that decided the kind.
	Evidence []string `json:"evidence"`
	// ConfigPath is the file that holds the configured parameters (as seen
	// from the machine, without the --root prefix); "" when there is none.
	ConfigPath string `json:"config_path,omitempty"`
	// ConfigKey is the variable or key inside it (GRUB_CMDLINE_LINUX_DEFAULT,
	// kernelCommandLine, user.kernel_options).
	ConfigKey string `json:"config_key,omitempty"`
	// ConfigLine is the 1-based line of ConfigKey (0: absent or not line based).
	ConfigLine int `json:"config_line,omitempty"`
	// Configured is the parameter string configured there now; Known is
	// false when it could not be read (file absent or unparsable).
	Configured string `json:"configured"`
	Known      bool   `json:"configured_known"`
	// ConfigNote says where the configured parameters come from when the
	// file itself is absent.
	ConfigNote string `json:"config_note,omitempty"`
	// ConfigWarnings are remarks about the configuration file (for a
	// .wslconfig: lines WSL skips, a second kernelCommandLine it ignores).
	ConfigWarnings []string `json:"config_warnings,omitempty"`
	// ConfigError says why the configuration could not be read.
	ConfigError string `json:"config_error,omitempty"`
	// AllEntries is GRUB_CMDLINE_LINUX of /etc/default/grub (the
	// parameters of every entry, recovery included), which GRUB puts
	// before GRUB_CMDLINE_LINUX_DEFAULT.
	AllEntries string `json:"all_entries,omitempty"`
	// DropIns are GRUB drop-ins (/etc/default/grub.d/*.cfg) that set a
	// GRUB_CMDLINE_LINUX variable and so can override the main file.
	DropIns []string `json:"drop_ins,omitempty"`
	// Entries are systemd-boot loader entries found.
	Entries []string `json:"entries,omitempty"`
	// OSID and OSLike are ID and ID_LIKE of /etc/os-release.
	OSID   string `json:"os_id,omitempty"`
	OSLike string `json:"os_like,omitempty"`
}

// Probe finds the platform from files below root (the --root directory):
// WSL 2 from the snapshot, then kernelstub, grubby, /etc/default/grub,
// /etc/kernel/cmdline or loader entries. It reads only; a missing or
// unreadable file is evidence of absence, never an error.
func Probe(root string, s *sysinfo.Snapshot) Platform {
	fs := newFsys(root)
	defer fs.close()
	osr := fs.read("etc/os-release")
	p := Platform{OSID: sysinfo.OSReleaseValue(osr, "ID"), OSLike: sysinfo.OSReleaseValue(osr, "ID_LIKE")}
	pretty := sysinfo.OSReleaseValue(osr, "PRETTY_NAME")
	if pretty == "" && s != nil {
		pretty = s.OSRelease
	}
	if pretty == "" {
		pretty = "an unidentified distribution"
	}
	switch {
	case s != nil && s.WSL != nil && s.WSL.Version == 2:
		p.Kind, p.Name = PlatformWSL, "WSL 2 ("+pretty+")"
		p.Evidence = append([]string{}, s.WSL.Evidence...)
		p.ConfigKey = "kernelCommandLine"
		p.ConfigPath = s.WSL.WSLConfigPath
		probeWSLConfig(fs, &p, s.WSL)
	case fs.exists("etc/kernelstub/configuration"):
		p.Kind, p.Name = PlatformKernelstub, "kernelstub on "+pretty
		p.Evidence = []string{"/etc/kernelstub/configuration"}
		p.ConfigPath, p.ConfigKey = "/etc/kernelstub/configuration", "user.kernel_options"
		probeKernelstub(fs, &p)
	case fs.firstExisting("usr/sbin/grubby", "sbin/grubby", "usr/bin/grubby") != "":
		p.Kind, p.Name = PlatformGrubby, "GRUB with grubby on "+pretty
		p.Evidence = []string{"/" + fs.firstExisting("usr/sbin/grubby", "sbin/grubby", "usr/bin/grubby")}
		if fs.exists("etc/kernel/cmdline") {
			p.Evidence = append(p.Evidence, "/etc/kernel/cmdline")
			p.ConfigPath = "/etc/kernel/cmdline"
			p.Configured, p.Known = strings.TrimSpace(fs.read("etc/kernel/cmdline")), true
		} else if s != nil {
			p.ConfigPath = "/proc/cmdline"
			p.ConfigNote = "no /etc/kernel/cmdline: grubby edits the entries, whose arguments are those of the running kernel"
			p.Configured, p.Known = bootParams(s.Cmdline.Raw), true
		}
	case fs.exists("etc/default/grub"):
		p.Kind, p.Name = PlatformGRUB, "GRUB on "+pretty
		if p.debianLike() {
			p.Kind = PlatformGRUBDebian
		}
		p.Evidence = []string{"/etc/default/grub"}
		p.ConfigPath, p.ConfigKey = "/etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT"
		probeGRUB(fs, &p)
	case fs.exists("etc/kernel/cmdline") || len(fs.loaderEntries()) > 0:
		p.Kind, p.Name = PlatformSystemdBoot, "systemd-boot / kernel-install on "+pretty
		p.Entries = fs.loaderEntries()
		p.ConfigPath = "/etc/kernel/cmdline"
		if fs.exists("etc/kernel/cmdline") {
			p.Evidence = append(p.Evidence, "/etc/kernel/cmdline")
			p.Configured, p.Known = strings.TrimSpace(fs.read("etc/kernel/cmdline")), true
		} else if s != nil {
			// kernel-install falls back to /proc/cmdline.
			p.ConfigNote = "/etc/kernel/cmdline is absent: kernel-install falls back to /proc/cmdline"
			p.Configured, p.Known = bootParams(s.Cmdline.Raw), true
		}
		p.Evidence = append(p.Evidence, p.Entries...)
	default:
		p.Kind, p.Name = PlatformUnknown, pretty
		if s != nil && s.Hypervisor.Guest {
			p.Name += ", a " + orUnknown(s.Hypervisor.Vendor) + " VM guest"
		}
		p.Evidence = []string{"no /etc/default/grub, /etc/kernel/cmdline, loader entries, grubby or kernelstub below the root"}
	}
	return p
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown-hypervisor"
	}
	return s
}

// debianLike reports whether the distribution uses update-grub.
func (p Platform) debianLike() bool {
	for _, id := range append([]string{p.OSID}, strings.Fields(p.OSLike)...) {
		switch id {
		case "debian", "ubuntu":
			return true
		}
	}
	return false
}

// bootParams is a command line without the tokens the boot loader adds
// itself (BOOT_IMAGE=, initrd=), for writing /etc/kernel/cmdline.
func bootParams(raw string) string {
	var keep []mitigation.Param
	for _, p := range mitigation.ParseCmdline(raw).Params {
		if k := p.Key(); k == "BOOT_IMAGE" || k == "initrd" {
			continue
		}
		keep = append(keep, p)
	}
	return mitigation.Format(keep)
}

// probeWSLConfig reads the .wslconfig the snapshot's locator found (the
// one sectax wslconfig edits); when it found none, it says why, and reads
// no other file.
func probeWSLConfig(fs fsys, p *Platform, w *sysinfo.WSL) {
	switch {
	case w.WSLConfigAmbiguous():
		p.ConfigError = fmt.Sprintf("%s: several Windows profiles (%s), so which .wslconfig WSL reads cannot be told from here; give sectax wslconfig the file with --path",
			w.WSLConfigSource, strings.Join(w.WSLConfigCandidates, ", "))
		return
	case p.ConfigPath == "" && w.WSLConfigSource != "":
		p.ConfigError = "no .wslconfig found (" + strings.TrimPrefix(w.WSLConfigSource, "not found: ") + ")"
		return
	case p.ConfigPath == "":
		p.ConfigError = "no .wslconfig found below the Windows drive mounts"
		return
	}
	data, err := fs.ReadFile(p.ConfigPath)
	if os.IsNotExist(err) {
		p.Known = true // no file: nothing configured
		return
	}
	if err != nil {
		p.ConfigError = "cannot read " + p.ConfigPath + ": " + rootfs.ErrText(err)
		return
	}
	f, err := wslconfig.Parse(data)
	if err != nil {
		p.ConfigError = err.Error()
		return
	}
	p.Known = true
	for _, d := range f.Warnings() {
		msg := fmt.Sprintf("%s line %d: %s", p.ConfigPath, d.Line, d.Msg)
		if d.Refuse {
			msg += " (sectax wslconfig refuses to edit the file until this line is fixed)"
		}
		p.ConfigWarnings = append(p.ConfigWarnings, msg)
	}
	if e, ok := f.KernelCommandLine(); ok {
		p.Configured, p.ConfigLine = e.Value, e.Line
	}
}

func probeKernelstub(fs fsys, p *Platform) {
	var cfg struct {
		User struct {
			KernelOptions []string `json:"kernel_options"`
		} `json:"user"`
	}
	if err := json.Unmarshal([]byte(fs.read("etc/kernelstub/configuration")), &cfg); err != nil {
		p.ConfigError = "cannot parse /etc/kernelstub/configuration: " + err.Error()
		return
	}
	p.Configured, p.Known = strings.Join(cfg.User.KernelOptions, " "), true
}

// probeGRUB reads GRUB_CMDLINE_LINUX_DEFAULT from /etc/default/grub (the
// last assignment wins, as the shell would) and lists drop-ins that set a
// GRUB_CMDLINE_LINUX variable.
func probeGRUB(fs fsys, p *Platform) {
	found := false
	for i, line := range strings.Split(fs.read("etc/default/grub"), "\n") {
		if v, ok := grubAssignment(line, "GRUB_CMDLINE_LINUX"); ok {
			p.AllEntries = v
			continue
		}
		v, ok := grubAssignment(line, "GRUB_CMDLINE_LINUX_DEFAULT")
		if !ok {
			continue
		}
		p.Configured, p.ConfigLine, found = v, i+1, true
	}
	p.Known = true
	if !found {
		p.Configured = ""
	}
	for _, n := range fs.names("etc/default/grub.d", ".cfg") {
		b, err := fs.ReadFile("etc/default/grub.d/" + n)
		if err == nil && strings.Contains(string(b), "GRUB_CMDLINE_LINUX") {
			p.DropIns = append(p.DropIns, "/etc/default/grub.d/"+n)
		}
	}
}

// grubAssignment returns the value of a shell assignment NAME=VALUE on one
// line, with one level of single or double quotes removed.
func grubAssignment(line, name string) (string, bool) {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "export ")
	v, ok := strings.CutPrefix(line, name+"=")
	if !ok {
		return "", false
	}
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[1 : 1+end], true
		}
	}
	if i := strings.IndexAny(v, " \t#"); i >= 0 {
		v = v[:i]
	}
	return v, true
}

// fsys reads files below a root directory through rootfs: below a fake
// root a symbolic link that leaves the tree is never followed and counts
// as absent, and only regular files are read (a FIFO cannot block the
// probe). A root that cannot be opened holds nothing.
type fsys struct{ *rootfs.FS }

func newFsys(root string) fsys {
	f, err := rootfs.Open(root)
	if err != nil {
		return fsys{}
	}
	return fsys{f}
}

func (f fsys) close() { f.Close() }

func (f fsys) read(p string) string {
	b, _ := f.ReadFile(p)
	return string(b)
}

// names lists the names in dir that end in suffix, sorted.
func (f fsys) names(dir, suffix string) []string {
	var names []string
	ents, _ := f.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) {
			names = append(names, e.Name())
		}
	}
	return names
}

func (f fsys) exists(p string) bool {
	fi, err := f.Stat(p)
	return err == nil && !fi.IsDir()
}

func (f fsys) firstExisting(paths ...string) string {
	for _, p := range paths {
		if f.exists(p) {
			return p
		}
	}
	return ""
}

// loaderEntries lists systemd-boot entries (/boot, /efi, /boot/efi).
func (f fsys) loaderEntries() []string {
	var out []string
	for _, dir := range []string{"boot/loader/entries", "efi/loader/entries", "boot/efi/loader/entries"} {
		for _, n := range f.names(dir, ".conf") {
			out = append(out, "/"+dir+"/"+n)
		}
	}
	return out
}
