package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/sysinfo"
)

// VerifySchema is the schema name of the verify JSON document.
const VerifySchema = "sectax.verify/v1"

// Check is one thing verify looked at.
type Check struct {
	// Name is cmdline, value (an expected value the kernel does not
	// accept), sysfs, model or config.
	Name string `json:"name"`
	// OK is false when the check found the expectation not met.
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// FileState is one vulnerability file as verify saw it.
type FileState struct {
	Name string `json:"name"`
	Raw  string `json:"raw"`
	// Why is the reason it is not in the expected state, when one is seen.
	Why string `json:"why,omitempty"`
}

// Verification is the result of Verify: the `sectax verify --format json`
// document.
type Verification struct {
	Schema   string            `json:"schema"`
	Expect   mitigation.Target `json:"expect"`
	Kernel   string            `json:"kernel"`
	Platform string            `json:"platform"`
	// Cmdline is /proc/cmdline; Mode and ModeReason what it gives.
	Cmdline    string          `json:"cmdline"`
	Mode       mitigation.Mode `json:"mode"`
	ModeReason string          `json:"mode_reason"`
	// Holds is true when the expectation is met (exit 0; else exit 3).
	Holds  bool    `json:"holds"`
	Checks []Check `json:"checks"`
	// Missing are expected parameters absent from (or different in) the
	// running command line; Unwanted are running parameters an "auto"
	// expectation rules out.
	Missing  []string `json:"missing"`
	Unwanted []string `json:"unwanted"`
	// StillMitigated are files the expectation turns off that sysfs still
	// shows mitigated.
	StillMitigated []FileState `json:"still_mitigated"`
	// Reasons say why the expectation is not met, as far as can be seen;
	// Fix says what to do.
	Reasons []string `json:"reasons"`
	Fix     []string `json:"fix"`
	// Proof is a stored proof (advise --prove, decide --prove) of the
	// running kernel's image and the expected line, when there is one.
	Proof *proven.Proof `json:"proof,omitempty"`
}

// Verify checks the running kernel (s) against the expectation t. p is the
// probed platform: its configured parameters tell "asked for but not
// applied" from "never asked for".
func Verify(s *sysinfo.Snapshot, p Platform, t mitigation.Target, kb *mitigation.Knowledge) Verification {
	v := Verification{Schema: VerifySchema, Expect: t, Kernel: s.Kernel.Release, Platform: p.Name,
		Cmdline: strings.TrimSpace(s.Cmdline.Raw), Checks: []Check{}, Missing: []string{}, Unwanted: []string{},
		StillMitigated: []FileState{}, Reasons: []string{}, Fix: []string{}}
	running := mitigation.ParseCmdline(s.Cmdline.Raw).Params
	v.Mode, v.ModeReason = mitigation.Classify(running).ModeFor(s.Kernel.Release)

	// 1. The command line.
	if t.Kind == mitigation.KindAuto {
		for _, r := range mitigation.Classify(running).Params {
			if r.Overridden {
				continue
			}
			if r.Kind == mitigation.KindGlobal && (r.Effect == mitigation.EffectOff || r.Effect == mitigation.EffectInvalid) ||
				r.Kind == mitigation.KindBug && (r.Effect == mitigation.EffectOff || r.Effect == mitigation.EffectInvalid) {
				v.Unwanted = append(v.Unwanted, r.Raw)
			}
		}
	} else {
		for _, ep := range t.Params {
			q, ok := mitigation.Lookup(running, ep.Name)
			switch {
			case !ok:
				v.Missing = append(v.Missing, ep.Raw+" (absent)")
			case q.Value != ep.Value || q.HasValue != ep.HasValue:
				v.Missing = append(v.Missing, fmt.Sprintf("%s (the running kernel has %s)", ep.Raw, q.Raw))
			}
		}
	}
	cmdOK := len(v.Missing) == 0 && len(v.Unwanted) == 0
	detail := "/proc/cmdline has " + mitigation.Format(t.Params)
	switch {
	case t.Kind == mitigation.KindAuto && cmdOK:
		detail = "/proc/cmdline turns no mitigation off (" + v.ModeReason + ")"
	case t.Kind == mitigation.KindAuto:
		detail = "/proc/cmdline turns mitigations off: " + strings.Join(v.Unwanted, " ")
	case !cmdOK:
		detail = "/proc/cmdline lacks " + strings.Join(v.Missing, ", ")
	}
	v.Checks = append(v.Checks, Check{Name: "cmdline", OK: cmdOK, Detail: detail})
	// A value the kernel does not accept is met as written and changes
	// nothing: said, so that MET is not read as "the mitigation is off".
	for _, tp := range t.Params {
		if why, _ := mitigation.Unaccepted(tp); why != "" {
			v.Checks = append(v.Checks, Check{Name: "value", OK: true, Detail: why + ": the kernel logs it and does not apply it as written"})
		}
	}

	// 2. The vulnerability files.
	// The model's expectation for the machine as booted: the same
	// function config.Verify asks for a lab or campaign boot.
	m := s.Machine()
	expected := kb.ExpectedOffAtBoot(m, t.Params)
	runningP := kb.Predict(m, running)
	expectOff := 0
	uncertain := kb.Uncertain(m)
	var uncertainLeft []string
	for _, f := range s.Vulnerabilities {
		if !slices.Contains(expected, f.Name) {
			continue
		}
		expectOff++
		if f.State != mitigation.Mitigated || kb.AlwaysOn(s.CPU.Arch, f.Name, f.Raw) {
			continue
		}
		if cmdOK && slices.Contains(uncertain, f.Name) {
			// The hidden stable level explains it either way: not a
			// failure, said below.
			uncertainLeft = append(uncertainLeft, f.Name)
			continue
		}
		fs := FileState{Name: f.Name, Raw: strings.TrimSpace(f.Raw)}
		if cmdOK {
			got := runningP.Of(f.Name)
			old := TooOld(kb, s.Kernel.Release, t.Params)
			switch {
			case len(old) > 0:
				var ps []string
				for _, p := range t.Params {
					if since, ok := old[p.Raw]; ok {
						ps = append(ps, fmt.Sprintf("%s (Linux %s+)", p.Raw, since))
					}
				}
				fs.Why = fmt.Sprintf("kernel %s predates %s in mainline and, without a distribution backport, ignores it", s.Kernel.Release, strings.Join(ps, ", "))
			case got.Rule == mitigation.RuleIBRSTrumps:
				fs.Why = "on Intel the kernel sets retbleed's method from spectre_v2's IBRS mode, which stays on"
			case got.Rule == mitigation.RuleVERW:
				fs.Why = fmt.Sprintf("its CPU-buffer clear (VERW) is shared with %s, which stays mitigated", got.Kept)
			case got.Kept != "":
				fs.Why = fmt.Sprintf("%s on the command line overrides mitigations=off (%s)", got.Kept, overrideRange(kb, got.Kept))
			case s.Kernel.Config != nil && s.Kernel.Config.CPUMitigations == "n":
				fs.Why = "the kernel is built without " + mitigation.GlobalSwitchConfig(s.Kernel.Release) + " and ignores mitigations="
			default:
				fs.Why = "the kernel ignores the parameter (built without " + mitigation.GlobalSwitchConfig(s.Kernel.Release) + ", or too old to know it)"
			}
		}
		v.StillMitigated = append(v.StillMitigated, fs)
	}
	switch {
	case s.Vulnerabilities == nil && s.VulnerabilitiesError() != "":
		v.Checks = append(v.Checks, Check{Name: "sysfs", OK: false, Detail: sysinfo.VulnerabilitiesDir + " exists but cannot be read (" + s.VulnerabilitiesError() + "): run as a user who may read it (e.g. with sudo)"})
	case s.Vulnerabilities == nil:
		v.Checks = append(v.Checks, Check{Name: "sysfs", OK: true, Detail: "no /sys/devices/system/cpu/vulnerabilities files (a container or an old kernel): nothing to compare"})
	case len(v.StillMitigated) > 0:
		var ns []string
		for _, f := range v.StillMitigated {
			ns = append(ns, f.Name)
		}
		v.Checks = append(v.Checks, Check{Name: "sysfs", OK: false, Detail: "still mitigated: " + strings.Join(ns, ", ")})
	case expectOff > 0:
		v.Checks = append(v.Checks, Check{Name: "sysfs", OK: true, Detail: fmt.Sprintf("%s the expectation turns off: none says \"Mitigation:\" (always-on parts aside)", plural(expectOff, "file"))})
	default:
		v.Checks = append(v.Checks, Check{Name: "sysfs", OK: true, Detail: "the expectation turns no vulnerability file off; nothing to compare"})
	}

	if note := kb.UncertainNote(m); note != "" {
		if len(uncertainLeft) > 0 {
			note = "still mitigated: " + strings.Join(uncertainLeft, ", ") + ", which the hidden stable level explains either way: " + note
		}
		v.Checks = append(v.Checks, Check{Name: "model", OK: true, Detail: note})
	}

	// 3. What the configuration asks for, to tell why the command line differs.
	asked, askedKnown := configuredAsks(p, t)
	if p.ConfigError != "" {
		v.Checks = append(v.Checks, Check{Name: "config", OK: true, Detail: fmt.Sprintf("cannot read %s: %s", configName(p), p.ConfigError)})
	}
	if p.Known && p.ConfigPath != "" {
		d := fmt.Sprintf("%s asks for %s", configName(p), t.String())
		if !asked {
			d = fmt.Sprintf("%s does not ask for %s (it has %q)", configName(p), t.String(), p.Configured)
		}
		v.Checks = append(v.Checks, Check{Name: "config", OK: asked, Detail: d})
	}

	sysfsErr := ""
	if s.Vulnerabilities == nil {
		sysfsErr = s.VulnerabilitiesError()
	}
	v.Holds = cmdOK && len(v.StillMitigated) == 0 && sysfsErr == ""
	if v.Holds {
		return v
	}
	if sysfsErr != "" {
		v.Reasons = append(v.Reasons, "what the kernel reports cannot be checked: "+sysinfo.VulnerabilitiesDir+" cannot be read ("+sysfsErr+")")
		v.Fix = append(v.Fix, "run sectax verify as a user who may read "+sysinfo.VulnerabilitiesDir+" (e.g. with sudo)")
	}
	if !cmdOK {
		v.Reasons, v.Fix = cmdlineReasons(p, t, asked, askedKnown, v.Missing, v.Unwanted)
	}
	if old := TooOld(kb, s.Kernel.Release, t.Params); len(v.StillMitigated) > 0 && cmdOK && len(old) > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("the parameters are on the command line but kernel %s is older than some of them (see above) and evidently ignores them", s.Kernel.Release))
		v.Fix = append(v.Fix, "use the per-bug parameters this kernel knows (sectax advise --target off lists the alternatives), or boot a newer kernel")
	} else if len(v.StillMitigated) > 0 && cmdOK {
		v.Reasons = append(v.Reasons, "the parameters are on the command line but sysfs still reports mitigations: a per-bug parameter overrides mitigations=off (Linux 6.17+), or the kernel ignores the parameter (built without "+mitigation.GlobalSwitchConfig(s.Kernel.Release)+")")
		v.Fix = append(v.Fix, "remove the per-bug parameters named above (sectax advise --target "+verifyArg(t)+" lists the edit), or boot a kernel built with "+mitigation.GlobalSwitchConfig(s.Kernel.Release)+"=y; then restart and verify again")
	}
	return v
}

// configuredAsks reports whether the platform's configured parameters
// already hold the expectation; known is false when they could not be read.
func configuredAsks(p Platform, t mitigation.Target) (asked, known bool) {
	if !p.Known || p.Kind == PlatformUnknown {
		return false, false
	}
	cfg := mitigation.ParseCmdline(p.Configured).Params
	if t.Kind == mitigation.KindAuto {
		m, _ := mitigation.Classify(cfg).Mode()
		return m == mitigation.ModeOn, true
	}
	for _, ep := range t.Params {
		q, ok := mitigation.Lookup(cfg, ep.Name)
		if !ok || q.Value != ep.Value || q.HasValue != ep.HasValue {
			return false, true
		}
	}
	return true, true
}

func configName(p Platform) string {
	if p.Kind == PlatformWSL {
		s := windowsPath(p.ConfigPath) + " [wsl2] kernelCommandLine"
		if p.ConfigLine > 0 {
			s += fmt.Sprintf(" (line %d)", p.ConfigLine)
		}
		return s
	}
	if p.ConfigKey != "" {
		return p.ConfigPath + " " + p.ConfigKey
	}
	return p.ConfigPath
}

// cmdlineReasons say why the running command line lacks the expectation.
func cmdlineReasons(p Platform, t mitigation.Target, asked, known bool, missing, unwanted []string) (reasons, fix []string) {
	advise := "sectax advise --target " + verifyArg(t)
	// What is wrong with the running line, naming the tokens: those an
	// auto expectation rules out, or the parameters it lacks.
	wrong := "the running kernel's command line does not have it"
	switch {
	case len(unwanted) > 0:
		wrong = fmt.Sprintf("the running kernel's command line has %s, which %s rules out", strings.Join(unwanted, " "), t.String())
	case len(missing) > 0:
		wrong = "the running kernel's command line lacks " + strings.Join(missing, ", ")
	}
	switch {
	case p.Kind == PlatformWSL && !known:
		reasons = append(reasons, fmt.Sprintf("%s, and the .wslconfig cannot be read (%s)", wrong, orUnknownErr(p.ConfigError)))
		fix = append(fix, "sectax wslconfig show says what is wrong with the file; after fixing it, "+advise+" prints the edit; then wsl --shutdown in Windows and verify again")
	case p.Kind == PlatformWSL && asked:
		reasons = append(reasons,
			"the .wslconfig asks for it but the running kernel did not get it: the WSL VM has not restarted since the edit, or a Windows policy (AllowKernelCommandLineUserSetting) dropped kernelCommandLine — WSL then warns \"The .wslconfig setting 'wsl2.kernelCommandLine' is disabled by the computer policy.\"")
		fix = append(fix, "run wsl --shutdown in Windows PowerShell or cmd, open the distro again, and run sectax verify again",
			"if it still fails, look for the policy warning when WSL starts; an administrator must allow the setting")
	case p.Kind == PlatformWSL:
		reasons = append(reasons, wrong+": the .wslconfig does not ask for "+t.String())
		fix = append(fix, advise+" prints the edit; then wsl --shutdown in Windows and verify again")
	case asked:
		reasons = append(reasons, fmt.Sprintf("%s asks for it but the running kernel did not get it: the machine has not rebooted since the change, the boot configuration was not regenerated, another boot entry was used, or a drop-in overrides it", configName(p)))
		fix = append(fix, "regenerate the boot configuration and reboot ("+advise+" prints the commands), then verify again")
	case known:
		reasons = append(reasons, fmt.Sprintf("%s: %s does not ask for %s", wrong, configName(p), t.String()))
		fix = append(fix, advise+" prints the commands; reboot and verify again")
	default:
		reasons = append(reasons, wrong+", and sectax cannot read where this machine's command line is configured")
		fix = append(fix, advise+" prints the full command line to configure; restart and verify again")
	}
	return reasons, fix
}

// plural is "1 file" or "N files".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
