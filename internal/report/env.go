package report

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// EnvSummary is the one line a person reads first.
func EnvSummary(s *sysinfo.Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mitigations: %s (%s)", strings.ToUpper(string(s.MitigationMode)), s.Cmdline.Mitigations.Label())
	c := s.VulnerabilityCounts
	if e := s.VulnerabilitiesError(); s.Vulnerabilities == nil && e != "" {
		b.WriteString(" — vulnerability files unreadable")
	} else if s.Vulnerabilities == nil {
		b.WriteString(" — no vulnerability files")
	} else {
		fmt.Fprintf(&b, " — %d mitigated, %d vulnerable, %d not affected", c.Mitigated, c.Vulnerable, c.NotAffected)
		if c.Unknown > 0 {
			fmt.Fprintf(&b, ", %d unknown", c.Unknown)
		}
	}
	b.WriteString("; ")
	b.WriteString(platform(s))
	return termSafe(b.String())
}

// platform says what the machine runs on, briefly.
func platform(s *sysinfo.Snapshot) string {
	h := s.Hypervisor
	switch {
	case s.WSL != nil && s.WSL.Version == 1:
		return "WSL 1 (no Linux kernel of its own)"
	case s.WSL != nil:
		v := h.Vendor
		if v == "" {
			v = "Hyper-V"
		}
		return fmt.Sprintf("%s guest (WSL %d)", v, s.WSL.Version)
	case h.Vendor != "" && h.Platform != "":
		return h.Vendor + " guest (" + h.Platform + ")"
	case h.Vendor != "":
		return h.Vendor + " guest"
	case h.Guest && h.Platform != "":
		return "virtual machine (" + h.Platform + ", hypervisor unknown)"
	case h.Guest:
		return "virtual machine (hypervisor unknown)"
	}
	return "bare metal"
}

// EnvText writes the text of 'sectax env': one summary line, then a
// section per part of the snapshot.
func EnvText(w io.Writer, s *sysinfo.Snapshot) error {
	return plainText(w, func(w io.Writer) error { return envText(w, s) })
}

func envText(w io.Writer, s *sysinfo.Snapshot) error {
	ew := &errWriter{w: w}
	writeForeign(ew, EnvSummary(s), s.Cmdline.Mitigations.Label()+platform(s), "", "  ")
	writeWrapped(ew, fmt.Sprintf("Mode %s: %s", s.MitigationMode, s.MitigationModeReason), "", "  ")

	fmt.Fprintln(ew)
	if e := s.VulnerabilitiesError(); s.Vulnerabilities == nil && e != "" {
		writeWrapped(ew, fmt.Sprintf("Vulnerabilities: %s exists but cannot be read (%s): run as a user who may read it (e.g. with sudo)", sysinfo.VulnerabilitiesDir, e), "", "  ")
	} else if s.Vulnerabilities == nil {
		writeWrapped(ew, "Vulnerabilities: /sys/devices/system/cpu/vulnerabilities is absent (container, old kernel, or a board without it)", "", "  ")
	} else {
		vulnerabilityTable(ew, s.Vulnerabilities)
		for _, v := range s.Vulnerabilities {
			if v.Note != "" {
				writeForeign(ew, "note: "+termSafe(v.Name)+": "+termSafe(v.Note), v.Name+v.Note, "  ", "    ")
			}
		}
	}

	sec := newSection(ew, "Kernel")
	sec.kv("release", s.Kernel.Release)
	sec.kv("version", s.Kernel.Version)
	if s.Kernel.Preemption != "" {
		sec.kv("preemption", fmt.Sprintf("%s, from %s", s.Kernel.Preemption, s.Kernel.PreemptionSource))
	}
	if s.Kernel.Clocksource != "" {
		sec.kv("clocksource", fmt.Sprintf("%s (available: %s)", s.Kernel.Clocksource, strings.Join(s.Kernel.ClocksourcesAvailable, " ")))
	}
	if s.Kernel.UptimeSeconds != nil {
		sec.kv("uptime", (time.Duration(*s.Kernel.UptimeSeconds) * time.Second).String())
	}
	if kc := s.Kernel.Config; kc != nil {
		sec.kv("config", kconfigText(kc))
	}
	sec.kv("boot id", s.BootID)
	sec.kv("fingerprint", fmt.Sprintf("cmdline %s, vulnerabilities %s", short(s.Fingerprint.Cmdline), short(s.Fingerprint.Vulnerabilities)))
	sec.flush()

	sec = newSection(ew, "Command line")
	sec.kv("raw", s.Cmdline.Raw)
	if g := s.Cmdline.Mitigations.Global; g != nil {
		d := "option " + g.Option
		if g.NoSMT {
			d += ", nosmt"
		}
		if len(g.VectorsOff) > 0 {
			d += ", attack vectors off: " + strings.Join(g.VectorsOff, ", ")
		}
		if len(g.Invalid) > 0 {
			d += ", not accepted: " + strings.Join(g.Invalid, ", ")
		}
		sec.kv("mitigations=", g.Value+" ("+d+")")
	}
	for i, r := range s.Cmdline.Mitigations.Params {
		key := ""
		if i == 0 {
			key = "relevant"
		}
		sec.kv(key, relevantText(r))
	}
	if len(s.Cmdline.Mitigations.Params) == 0 {
		sec.kv("relevant", "none")
	}
	if len(s.Cmdline.InitArgs) > 0 {
		sec.kv("init args", strings.Join(s.Cmdline.InitArgs, " "))
	}
	sec.flush()

	sec = newSection(ew, "CPU")
	c := s.CPU
	sec.kv("model", c.ModelName)
	ident := c.Vendor
	if c.Family != "" || c.Model != "" {
		ident += fmt.Sprintf(", family %s model %s stepping %s", c.Family, c.Model, c.Stepping)
	}
	if c.Microcode != "" {
		ident += ", microcode " + c.Microcode
	}
	if c.Arch != "" {
		ident += " (" + c.Arch + ")"
	}
	sec.kv("identity", strings.TrimPrefix(ident, ", "))
	sec.kv("cpus", fmt.Sprintf("%d online (%s) of %d possible; %d in /proc/cpuinfo", c.Online, c.OnlineList, c.Possible, c.Processors))
	if c.Isolated != "" || c.NohzFull != "" {
		sec.kv("isolated", fmt.Sprintf("%s (nohz_full %s)", orNone(c.Isolated), orNone(c.NohzFull)))
	}
	sec.kv("bugs", orNone(strings.Join(c.Bugs, " ")))
	sec.kv("flags", orNone(strings.Join(c.Flags, " ")))
	smt := unknownIfEmpty(s.SMT.Control)
	if s.SMT.Active != nil {
		smt += ", active " + yesNo(*s.SMT.Active)
	}
	sec.kv("SMT", "control "+smt)
	sec.flush()

	sec = newSection(ew, "Virtualisation")
	h := s.Hypervisor
	switch {
	case h.Vendor != "" && h.Hint:
		sec.kv("hypervisor", fmt.Sprintf("%s (from %s, a hint)", h.Vendor, h.Source))
	case h.Vendor != "":
		sec.kv("hypervisor", fmt.Sprintf("%s (from %s)", h.Vendor, h.Source))
	case h.Guest:
		sec.kv("hypervisor", "unknown (a guest: no source names its hypervisor)")
	default:
		sec.kv("hypervisor", "none seen (bare metal)")
	}
	if h.Platform != "" {
		sec.kv("platform", h.Platform)
	}
	if h.Outer != "" {
		sec.kv("below it", h.Outer+" (CPUID, answered by the layer under the kernel's hypervisor)")
	}
	for i, e := range h.Evidence {
		key := ""
		if i == 0 {
			key = "evidence"
		}
		sec.kv(key, e)
	}
	if wsl := s.WSL; wsl != nil {
		sec.kv("WSL", fmt.Sprintf("version %d, distro %s, kernel flavour %s", wsl.Version, unknownIfEmpty(wsl.Distro), unknownIfEmpty(wsl.KernelFlavor)))
		pkg := wsl.WSLPackageVersion
		if pkg == "" {
			pkg = "not available (needs wslinfo or Windows interop)"
		}
		if wsl.WindowsVersion != "" {
			pkg += ", Windows " + wsl.WindowsVersion
		}
		sec.kv("WSL package", pkg)
		if wsl.Interop != nil {
			sec.kv("interop", yesNo(*wsl.Interop))
		}
		cfg := "not found"
		if wsl.WSLConfigAmbiguous() {
			cfg = wsl.WSLConfigSource + " (" + strings.Join(wsl.WSLConfigCandidates, ", ") + ")"
		}
		if wsl.WSLConfigPath != "" {
			cfg = wsl.WSLConfigPath
			if !wsl.WSLConfigExists {
				cfg += " (does not exist yet)"
			}
		}
		sec.kv(".wslconfig", cfg)
	} else {
		sec.kv("WSL", "no")
	}
	sec.flush()

	sec = newSection(ew, "Speculation controls of this process")
	sp := s.Speculation
	sec.kv("store bypass", specText(sp.StoreBypass))
	sec.kv("indirect branch", specText(sp.IndirectBranch))
	sec.kv("L1D flush", specText(sp.L1DFlush))
	sec.kv("seccomp", unknownIfEmpty(sp.Seccomp))
	sec.flush()

	sec = newSection(ew, "System")
	sec.kv("os", unknownIfEmpty(s.OSRelease))
	sec.kv("hostname", unknownIfEmpty(s.Hostname))
	if s.Memory.TotalBytes != nil {
		sec.kv("memory", gibText(float64(*s.Memory.TotalBytes)))
	}
	cf := "not visible"
	if s.Cpufreq.Governor != "" || s.Cpufreq.Driver != "" || s.Cpufreq.Boost != nil {
		cf = fmt.Sprintf("governor %s, driver %s", unknownIfEmpty(s.Cpufreq.Governor), unknownIfEmpty(s.Cpufreq.Driver))
		if s.Cpufreq.Boost != nil {
			cf += ", boost " + yesNo(*s.Cpufreq.Boost)
		}
	}
	sec.kv("cpufreq", cf)
	if s.THP.Enabled != "" || s.THP.Defrag != "" {
		sec.kv("THP", fmt.Sprintf("enabled %s, defrag %s", unknownIfEmpty(s.THP.Enabled), unknownIfEmpty(s.THP.Defrag)))
	}
	if s.GoVersion != "" {
		sec.kv("go", s.GoVersion+" (built with)")
	}
	if s.GoToolchain != "" {
		sec.kv("go on PATH", s.GoToolchain+" (what go-build times)")
	}
	if s.SectaxVersion != "" {
		sec.kv("sectax", s.SectaxVersion)
	}
	sec.flush()

	if len(s.Absent) > 0 || len(s.Unreadable) > 0 {
		sec = newSection(ew, "Files")
		for i, p := range s.Absent {
			key := ""
			if i == 0 {
				key = "absent"
			}
			sec.kv(key, p)
		}
		for i, u := range s.Unreadable {
			key := ""
			if i == 0 {
				key = "unreadable"
			}
			sec.kv(key, u.Path+" ("+u.Error+")")
		}
		sec.flush()
	}
	return ew.err
}

// relevantText says what a mitigation-relevant parameter is and what it
// does to the mitigations ("off" as the classifier's effect is spelt out:
// it turns mitigations off or weakens them, it does not say they are off).
func relevantText(r mitigation.Relevant) string {
	var d []string
	switch r.Kind {
	case mitigation.KindGlobal:
		d = append(d, "the global switch: "+globalEffect(r))
	case mitigation.KindBug, mitigation.KindSMT:
		kind := "a per-bug parameter"
		if r.Kind == mitigation.KindSMT {
			kind = "the SMT switch"
		}
		if e := effectText(r.Effect); e != "" {
			kind += ": " + e
		}
		d = append(d, kind)
	case mitigation.KindToggle:
		d = append(d, "not a mitigation")
	default:
		d = append(d, string(r.Kind))
	}
	if len(r.Files) > 0 {
		d = append(d, "affects "+strings.Join(r.Files, ", "))
	}
	if r.Note != "" {
		d = append(d, r.Note)
	}
	if r.Overridden {
		d = append(d, "overridden by a later copy")
	}
	return r.Raw + " — " + strings.Join(d, "; ")
}

// globalEffect says what a mitigations= value does, from its parse.
func globalEffect(r mitigation.Relevant) string {
	g := mitigation.ParseGlobal(r.Value)
	switch {
	case r.Effect == mitigation.EffectInvalid:
		return "a value the kernel does not accept (it keeps its default, auto)"
	case g.Option == "off":
		return "turns every mitigation off"
	case len(g.VectorsOff) > 0:
		return "auto, but turns off the mitigations of the attack vectors " + strings.Join(g.VectorsOff, ", ")
	case g.NoSMT:
		return "auto (every mitigation the CPU needs), and SMT off where a bug needs it"
	}
	return "auto (every mitigation the CPU needs), the kernel's default"
}

// effectText spells out a per-bug parameter's effect.
func effectText(e mitigation.Effect) string {
	switch e {
	case mitigation.EffectOff:
		return "turns its mitigation off or weakens it"
	case mitigation.EffectOn:
		return "forces its mitigation on or strengthens it"
	case mitigation.EffectSelect:
		return "picks the mitigation's method"
	case mitigation.EffectDefault:
		return "writes out the kernel's default (changes nothing)"
	case mitigation.EffectInvalid:
		return "a value the kernel does not accept"
	}
	return string(e)
}

func specText(sc sysinfo.SpecCtl) string {
	var parts []string
	if sc.Status != "" {
		parts = append(parts, sc.Status)
	}
	if sc.Prctl != nil {
		parts = append(parts, fmt.Sprintf("prctl %d (%s)", *sc.Prctl, strings.Join(sc.PrctlBits, ", ")))
	}
	if sc.PrctlError != "" {
		parts = append(parts, "prctl failed: "+sc.PrctlError)
	}
	if len(parts) == 0 {
		return "not visible"
	}
	return strings.Join(parts, "; ")
}

// kconfigText summarises the build configuration in one line.
func kconfigText(kc *sysinfo.KernelConfig) string {
	parts := []string{"CPU mitigations " + unknownIfEmpty(kc.CPUMitigations)}
	if v := kc.Options["CONFIG_HZ"]; v != "" {
		parts = append(parts, "HZ "+v)
	}
	for _, v := range []string{"NONE", "XONLY", "EMULATE"} {
		if kc.Options["CONFIG_LEGACY_VSYSCALL_"+v] == "y" {
			parts = append(parts, "vsyscall "+strings.ToLower(v))
		}
	}
	if v := kc.Options["CONFIG_AUDITSYSCALL"]; v != "" {
		parts = append(parts, "audit syscalls "+v)
	}
	return kc.Source + ": " + strings.Join(parts, ", ")
}

// short abbreviates a hex hash for people ("none" when empty).
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return orNone(h)
}

func unknownIfEmpty(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// vulnerabilityTable lays out what the kernel says of each vulnerability,
// wrapped to TextWidth under its column, with the knowledge base's
// one-liner under it.
func vulnerabilityTable(w io.Writer, vs []mitigation.Vulnerability) {
	head := [3]string{"VULNERABILITY", "STATE", "KERNEL SAYS"}
	rows, raws := [][3]string{}, []string{}
	for _, v := range vs {
		state := strings.ReplaceAll(string(v.State), "_", " ")
		if v.Scope != "" {
			state += " (" + v.Scope + ")"
		}
		says := v.Raw
		if says == "" {
			says = "(" + orNone(v.Mitigation) + ")"
		}
		// A vulnerability file is one line in the kernel's format: its
		// name and text are shown as one (termSafe), whatever a file
		// below --root or a stored environment holds.
		rows = append(rows, [3]string{termSafe(v.Name), termSafe(state), termSafe(says)})
		raws = append(raws, v.Name+state+says)
	}
	var wd [2]int
	for _, r := range append([][3]string{head}, rows...) {
		wd[0] = max(wd[0], utf8.RuneCountInString(r[0]))
		wd[1] = max(wd[1], utf8.RuneCountInString(r[1]))
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-utf8.RuneCountInString(s)) }
	col := strings.Repeat(" ", wd[0]+2+wd[1]+2)
	fmt.Fprintln(w, pad(head[0], wd[0])+"  "+pad(head[1], wd[1])+"  "+head[2])
	for i, r := range rows {
		writeForeign(w, r[2], raws[i], pad(r[0], wd[0])+"  "+pad(r[1], wd[1])+"  ", col)
		// The knowledge base's one-liner, under what the kernel says.
		if line, _ := mitigation.OneLiner(vs[i].Name); line != "" { // or the hint for a file the knowledge base lacks
			writeWrapped(w, line, col+"  ", col+"  ")
		}
	}
}

// section prints a titled block of aligned "key  value" lines, each value
// wrapped to TextWidth under the value column.
type section struct {
	w    io.Writer
	rows [][3]string // key, value made safe, value as given
}

func newSection(w io.Writer, title string) *section {
	fmt.Fprintf(w, "\n%s\n", title)
	return &section{w: w}
}

func (s *section) kv(k, v string) {
	if v == "" && k != "" {
		v = "unknown"
	}
	// Every value may come from a file below --root: no control
	// character or escape sequence of it reaches the terminal.
	s.rows = append(s.rows, [3]string{k, termSafe(v), v})
}

func (s *section) flush() {
	width := 0
	for _, r := range s.rows {
		width = max(width, utf8.RuneCountInString(r[0]))
	}
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range s.rows {
		key := "  " + r[0] + strings.Repeat(" ", width-utf8.RuneCountInString(r[0])) + "  "
		writeForeign(s.w, r[1], r[2], key, indent)
	}
	s.rows = nil
}

// gibText is a number of bytes in GiB, one decimal ("15.5 GiB").
func gibText(bytes float64) string {
	return fmt.Sprintf("%.1f GiB", bytes/(1<<30))
}
