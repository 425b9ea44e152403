//go:build linux

package sysinfo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/sysfs"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/wslconfig"
)

// programTimeout bounds every external program Collect runs (wslinfo,
// wsl.exe, cmd.exe): a run must not wait on a hung Windows interop.
const programTimeout = 600 * time.Millisecond

// Collect reads the snapshot below root ("/" for the running machine).
// Missing and unreadable files are recorded in the snapshot, not returned
// as errors; the only error is a root that is not a directory holding
// proc/ or sys/ (wrapping ErrBadRoot).
func Collect(root string) (*Snapshot, error) {
	return CollectContext(context.Background(), root)
}

// CollectContext is Collect with a context: cancelling it stops waiting
// for the external programs asked on a live WSL guest.
func CollectContext(ctx context.Context, root string) (*Snapshot, error) {
	if root == "" {
		root = "/"
	}
	// A fake tree is read only through rootfs (os.Root): a symbolic link
	// that points outside it is never followed, and the file is recorded
	// as unreadable instead.
	rfs, err := rootfs.Open(root)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Errorf("%w: %s is not a directory", ErrBadRoot, root)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrBadRoot, root, rootfs.ErrText(err))
	}
	defer rfs.Close()
	c := &collector{root: root, live: rfs.Live(), fs: rfs}
	if !c.isDir("proc") && !c.isDir("sys") {
		return nil, fmt.Errorf("%w: %s holds neither proc/ nor sys/", ErrBadRoot, root)
	}
	if p, err := procfs.NewFS(filepath.Join(root, "proc")); err == nil {
		c.proc = &p
	}
	if s, err := sysfs.NewFS(filepath.Join(root, "sys")); err == nil {
		c.sys = &s
	}
	s := &Snapshot{Live: c.live}
	c.kernel(s)
	c.cmdline(s)
	c.vulnerabilities(s)
	c.cpu(s)
	readCmdlineForArch(s)
	c.smt(s)
	c.misc(s)
	c.speculation(s)
	c.hypervisor(s)
	c.wsl(ctx, s)
	if c.live {
		s.GoVersion = runtime.Version()
		s.GoToolchain = goToolchain(ctx)
	}
	s.Absent, s.Unreadable = c.notes.Absent, c.notes.Unreadable
	return s, nil
}

// collector reads files below root (through rootfs) and remembers which
// were absent or unreadable. The procfs and sysfs readers open paths
// themselves; every call of theirs is preceded by a check of the files it
// reads (regular, clocksourcesSafe, dmiSafe) made through rootfs, so that
// in a fake tree they only read what resolves inside it.
type collector struct {
	root  string
	live  bool
	fs    *rootfs.FS
	proc  *procfs.FS
	sys   *sysfs.FS
	notes rootfs.Notes
}

func (c *collector) readDir(rel string) ([]fs.DirEntry, error) { return c.fs.ReadDir(rel) }

func (c *collector) isDir(rel string) bool { return c.fs.IsDir(rel) }

func (c *collector) exists(rel string) bool { return c.fs.Exists(rel) }

// note records err for the file rel: absent or unreadable.
func (c *collector) note(rel string, err error) { c.notes.Note(rel, err) }

// absent records rel as absent.
func (c *collector) absent(rel string) { c.notes.Absent = append(c.notes.Absent, "/"+rel) }

// read returns the text of rel with trailing white space removed,
// recording an absent or unreadable file.
func (c *collector) read(rel string) (string, bool) {
	s, err := c.fs.ReadText(rel)
	if err != nil {
		c.note(rel, err)
		return "", false
	}
	return s, true
}

// readQuiet is read for optional files: nothing is recorded.
func (c *collector) readQuiet(rel string) (string, bool) {
	s, err := c.fs.ReadText(rel)
	return s, err == nil
}

// regular reports whether every one of rels is a regular file, so that a
// procfs call on them cannot block; it records the first that is not.
func (c *collector) regular(rels ...string) bool {
	for _, rel := range rels {
		if err := c.fs.Regular(rel); err != nil {
			c.note(rel, err)
			return false
		}
	}
	return true
}

func (c *collector) kernel(s *Snapshot) {
	if c.proc != nil {
		if c.regular("proc/sys/kernel/osrelease") {
			if v, err := c.proc.SysctlStrings("kernel.osrelease"); err == nil {
				s.Kernel.Release = strings.Join(v, " ")
			} else {
				c.note("proc/sys/kernel/osrelease", err)
			}
		}
		if c.regular("proc/sys/kernel/hostname") {
			if v, err := c.proc.SysctlStrings("kernel.hostname"); err == nil {
				s.Hostname = strings.Join(v, " ")
			} else {
				c.note("proc/sys/kernel/hostname", err)
			}
		}
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
	const cs0 = "sys/devices/system/clocksource/clocksource0"
	if c.sys != nil && c.isDir(cs0) && c.regular(cs0+"/current_clocksource", cs0+"/available_clocksource") && c.clocksourcesSafe() {
		cs, err := c.sys.ClockSources()
		switch {
		case err != nil:
			c.note("sys/devices/system/clocksource/clocksource0", err)
		case len(cs) == 0:
			c.absent(cs0)
		default:
			s.Kernel.Clocksource = cs[0].Current
			s.Kernel.ClocksourcesAvailable = cs[0].Available
		}
	} else if c.sys == nil {
		c.absent("sys")
	} else if !c.isDir(cs0) {
		c.absent(cs0)
	}
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
	s.MitigationMode, s.MitigationModeReason = s.Cmdline.Mitigations.Mode()
	if kc := s.Kernel.Config; kc != nil && kc.CPUMitigations == "n" {
		s.MitigationMode = mitigation.ModeOff
		s.MitigationModeReason = "the kernel was built without CONFIG_CPU_MITIGATIONS (" + kc.Source +
			"): the mitigations are not compiled in, whatever the command line says (" + s.MitigationModeReason + ")"
	}
	s.Fingerprint.Cmdline = hashText(raw)
}

// vulnDir is where the kernel lists CPU vulnerabilities.
const vulnDir = "sys/devices/system/cpu/vulnerabilities" // VulnerabilitiesDir below the root

func (c *collector) vulnerabilities(s *Snapshot) {
	// Note: sysfs.FS.CPUVulnerabilities fails as a whole when one file is
	// unreadable and drops the raw text, so the directory is read here:
	// every file that exists is listed, whatever its name.
	entries, err := c.readDir(vulnDir)
	if err != nil {
		c.note(vulnDir, err)
		return
	}
	s.Vulnerabilities = []mitigation.Vulnerability{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		rel := vulnDir + "/" + e.Name()
		raw, err := c.fs.ReadText(rel)
		if err != nil {
			c.note(rel, err)
			s.Vulnerabilities = append(s.Vulnerabilities, mitigation.Vulnerability{
				Name: e.Name(), State: mitigation.Unknown, Mitigation: "unreadable: " + rootfs.ErrText(err), Fields: map[string]string{}})
			continue
		}
		s.Vulnerabilities = append(s.Vulnerabilities, mitigation.ParseVulnerability(e.Name(), raw))
	}
	slices.SortFunc(s.Vulnerabilities, func(a, b mitigation.Vulnerability) int { return strings.Compare(a.Name, b.Name) })
	s.VulnerabilityCounts = mitigation.Count(s.Vulnerabilities)
	s.Fingerprint.Vulnerabilities = hashVulnerabilities(s.Vulnerabilities)
}

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

func (c *collector) misc(s *Snapshot) {
	if v, ok := c.read("proc/sys/kernel/random/boot_id"); ok {
		s.BootID = v
	}
	if c.proc != nil && c.regular("proc/meminfo") {
		if m, err := c.proc.Meminfo(); err == nil && m.MemTotalBytes != nil {
			t := *m.MemTotalBytes
			s.Memory.TotalBytes = &t
		} else if err != nil {
			c.note("proc/meminfo", err)
		}
	}
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
	if v, ok := c.read("sys/kernel/mm/transparent_hugepage/enabled"); ok {
		s.THP.EnabledRaw, s.THP.Enabled = v, selected(v)
	}
	if v, ok := c.read("sys/kernel/mm/transparent_hugepage/defrag"); ok {
		s.THP.DefragRaw, s.THP.Defrag = v, selected(v)
	}
	osr, ok := c.readQuiet("etc/os-release")
	if !ok {
		osr, ok = c.read("usr/lib/os-release")
	}
	if ok {
		s.OSRelease = OSReleaseValue(osr, "PRETTY_NAME")
	}
}

func (c *collector) speculation(s *Snapshot) {
	if v, ok := c.read("proc/self/status"); ok {
		s.Speculation.StoreBypass.Status, _ = StatusValue(v, "Speculation_Store_Bypass")
		s.Speculation.IndirectBranch.Status, _ = StatusValue(v, "SpeculationIndirectBranch")
		s.Speculation.Seccomp, _ = StatusValue(v, "Seccomp")
	}
	if c.live {
		prctlSpec(&s.Speculation.StoreBypass, 0)
		prctlSpec(&s.Speculation.IndirectBranch, 1)
		prctlSpec(&s.Speculation.L1DFlush, 2)
	}
}

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
	if c.sys != nil && c.dmiSafe() {
		if d, err := c.sys.DMIClass(); err == nil {
			str := func(p *string) string {
				if p == nil {
					return ""
				}
				return *p
			}
			vendor, product, version := str(d.SystemVendor), str(d.ProductName), str(d.ProductVersion)
			if name := HypervisorFromDMI(vendor, product, version); name != "" {
				h.Guest = true
				h.Evidence = append(h.Evidence, fmt.Sprintf("dmi: %s / %s / %s", vendor, product, version))
				set(name, "dmi")
			}
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

// dmiSafe reports whether /sys/class/dmi/id exists and holds no FIFO,
// device or socket, so that sysfs.FS.DMIClass cannot block on it (it skips
// links and directories itself).
func (c *collector) dmiSafe() bool {
	entries, err := c.readDir("sys/class/dmi/id")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Type()&(fs.ModeNamedPipe|fs.ModeDevice|fs.ModeCharDevice|fs.ModeSocket) != 0 {
			return false
		}
	}
	return true
}

// clocksourcesSafe reports whether every clocksource* entry that
// sysfs.FS.ClockSources reads resolves inside the root (in a fake tree) to
// a directory of regular files; it records the first that does not.
func (c *collector) clocksourcesSafe() bool {
	if c.live {
		return true
	}
	const dir = "sys/devices/system/clocksource"
	entries, err := c.readDir(dir)
	if err != nil {
		c.note(dir, err)
		return false
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "clocksource") {
			continue
		}
		d := dir + "/" + e.Name()
		if !c.isDir(d) {
			c.note(d, &fs.PathError{Op: "open", Path: c.fs.Path(d), Err: rootfs.ErrNotRegular})
			return false
		}
		if !c.regular(d+"/current_clocksource", d+"/available_clocksource") {
			return false
		}
	}
	return true
}

func (c *collector) wsl(ctx context.Context, s *Snapshot) {
	var evidence []string
	version, flavor := WSLKernel(s.Kernel.Release)
	if version != 0 {
		evidence = append(evidence, "kernel release "+s.Kernel.Release)
	}
	if c.isDir("run/WSL") {
		evidence = append(evidence, "/run/WSL")
	}
	interopFile := c.exists("proc/sys/fs/binfmt_misc/WSLInterop") || c.exists("proc/sys/fs/binfmt_misc/WSLInterop-late")
	if interopFile {
		evidence = append(evidence, "binfmt_misc WSLInterop")
	}
	if c.live {
		for _, k := range []string{"WSL_DISTRO_NAME", "WSL_INTEROP"} {
			if os.Getenv(k) != "" {
				evidence = append(evidence, "$"+k)
			}
		}
	}
	if len(evidence) == 0 {
		return
	}
	w := &WSL{Version: version, KernelFlavor: flavor, Evidence: evidence}
	if w.Version == 0 {
		// A custom kernel: the root file system type tells WSL 1 (wslfs,
		// lxfs) from WSL 2 (ext4).
		w.Version, w.KernelFlavor = 2, "custom"
		if m, ok := c.readQuiet("proc/mounts"); ok {
			for _, line := range strings.Split(m, "\n") {
				f := strings.Fields(line)
				if len(f) >= 3 && f[1] == "/" && (f[2] == "wslfs" || f[2] == "lxfs") {
					w.Version = 1
				}
			}
		}
	}
	if c.live {
		w.Distro = os.Getenv("WSL_DISTRO_NAME")
	}
	if w.Distro == "" {
		osr, ok := c.readQuiet("etc/os-release")
		if !ok {
			osr, _ = c.readQuiet("usr/lib/os-release")
		}
		w.Distro = OSReleaseValue(osr, "NAME")
	}
	interop := interopFile || (c.live && os.Getenv("WSL_INTEROP") != "")
	conf, _ := c.readQuiet("etc/wsl.conf")
	if wslconfig.InteropDisabled([]byte(conf)) {
		interop = false
	}
	w.Interop = &interop
	mountRoot := wslconfig.AutomountRoot([]byte(conf))
	if s.Hypervisor.Vendor == "" && w.Version == 2 {
		s.Hypervisor.Vendor, s.Hypervisor.Source = "Hyper-V", "wsl"
		s.Hypervisor.Guest = true
	}

	if c.live {
		c.wslPrograms(ctx, w, interop, mountRoot)
	} else {
		c.locateWSLConfig(ctx, w, false)
	}
	s.WSL = w
}

// locateWSLConfig finds %UserProfile%\.wslconfig with wslconfig.Locator,
// the finder sectax wslconfig edits with, and records what it found: the
// file and how, or why none was chosen ("ambiguous: N candidates" when
// several Windows profiles could be the user's). Below an offline root it
// reads no environment; without interop it runs no program.
func (c *collector) locateWSLConfig(ctx context.Context, w *WSL, interop bool) {
	l := wslconfig.Locator{Root: c.root, Timeout: programTimeout}
	if !c.live {
		l.Getenv = func(string) string { return "" }
	}
	if !c.live || !interop {
		l.Run = func(context.Context, string, string, ...string) ([]byte, error) {
			return nil, errors.New("not run here: sectax runs no Windows program below an offline root or without interop")
		}
	}
	loc, err := l.Find(ctx)
	var nf *wslconfig.NotFoundError
	switch {
	case err == nil:
		w.WSLConfigPath, w.WSLConfigSource = loc.InRoot, loc.Source
		w.WSLConfigExists = c.exists(strings.TrimPrefix(loc.InRoot, "/"))
	case errors.As(err, &nf) && len(nf.Candidates) > 1:
		w.WSLConfigSource = fmt.Sprintf("ambiguous: %d candidates", len(nf.Candidates))
		for _, p := range nf.Candidates {
			w.WSLConfigCandidates = append(w.WSLConfigCandidates, p+"/"+wslconfig.FileName)
		}
	case errors.As(err, &nf):
		w.WSLConfigSource = "not found: " + strings.Join(nf.Tried, "; ")
	default:
		w.WSLConfigSource = "not found: " + err.Error()
	}
}

// wslPrograms asks the running WSL for its package version (wslinfo, then
// wsl.exe, which also gives the Windows version) and locates .wslconfig,
// all concurrently within programTimeout. Anything that fails leaves its
// field empty.
func (c *collector) wslPrograms(ctx context.Context, w *WSL, interop bool, mountRoot string) {
	ctx, cancel := context.WithTimeout(ctx, programTimeout)
	defer cancel()
	var wg sync.WaitGroup
	var pkg, exePkg, win string
	wg.Add(3)
	go func() {
		defer wg.Done()
		if out, err := runProgram(ctx, nil, "", "wslinfo", "--version"); err == nil {
			pkg, _ = ParseWSLVersion(DecodeConsoleText(out))
		}
	}()
	go func() {
		defer wg.Done()
		if !interop {
			return
		}
		env := []string{"WSL_UTF8=1", "WSLENV=" + os.Getenv("WSLENV") + ":WSL_UTF8"}
		if out, err := runProgram(ctx, env, "", windowsProgram(mountRoot, "wsl.exe"), "--version"); err == nil {
			exePkg, win = ParseWSLVersion(DecodeConsoleText(out))
		}
	}()
	go func() {
		defer wg.Done()
		// .wslconfig: the locator asks $USERPROFILE, cmd.exe and the
		// profile folders under the drive mounts. A Windows drive can be
		// slow (9p), so the search runs under the deadline: one that does
		// not finish in time is abandoned and leaves the fields empty.
		found := &WSL{}
		done := make(chan struct{})
		go func() {
			c.locateWSLConfig(ctx, found, interop)
			close(done)
		}()
		select {
		case <-done:
			w.WSLConfigPath, w.WSLConfigExists = found.WSLConfigPath, found.WSLConfigExists
			w.WSLConfigSource, w.WSLConfigCandidates = found.WSLConfigSource, found.WSLConfigCandidates
		case <-ctx.Done():
			w.WSLConfigSource = "not found: the search did not finish within " + programTimeout.String()
		}
	}()
	wg.Wait()
	if pkg == "" {
		pkg = exePkg
	}
	w.WSLPackageVersion, w.WindowsVersion = pkg, win
}

// windowsProgram finds a Windows program: on PATH, else in System32 under
// the automount root (appendWindowsPath=false removes it from PATH).
func windowsProgram(mountRoot, name string) string {
	if p, err := child.LookPath(name); err == nil {
		return p
	}
	return strings.TrimSuffix(mountRoot, "/") + "/c/Windows/System32/" + name
}

// goToolchain asks the go command on PATH for its version, within a
// second; "" when there is none or it does not answer.
func goToolchain(ctx context.Context) string {
	if _, err := child.LookPath("go"); err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	out, err := runProgram(ctx, nil, "", "go", "env", "GOVERSION")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
