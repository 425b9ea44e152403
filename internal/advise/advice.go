package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/sysinfo"
)

// AdviceSchema is the schema name of the advise JSON document.
const AdviceSchema = "sectax.advise/v1"

// Change is one edit of the configured parameters (add, replace or
// remove), as mitigation.Diff lists it for wslconfig too.
type Change = mitigation.Change

// Step is one thing the user does. Nothing is run by sectax.
type Step struct {
	// Where is "linux" (a shell in this machine), "windows" (PowerShell or
	// cmd on the Windows host) or "manual" (an edit by hand).
	Where string `json:"where"`
	// Text says what the step does.
	Text string `json:"text"`
	// Command is the exact command, "" for a manual step.
	Command string `json:"command,omitempty"`
}

// Loss is one vulnerability file whose state the target changes.
type Loss struct {
	Name string `json:"name"`
	// From is the sysfs line now, To the predicted one.
	From string `json:"from"`
	To   string `json:"to"`
	// By is the parameter responsible.
	By string `json:"by,omitempty"`
	// Explanation is the knowledge base's sentence about the change.
	Explanation string `json:"explanation"`
	// GuestNote is what differs inside a VM guest (guests only).
	GuestNote string `json:"guest_note,omitempty"`
}

// Toggle is a target parameter that is no CPU mitigation.
type Toggle struct {
	Param   string `json:"param"`
	Summary string `json:"summary"`
}

// Advice is the result of Plan: the `sectax advise --format json` document.
type Advice struct {
	Schema   string            `json:"schema"`
	Target   mitigation.Target `json:"target"`
	Kernel   string            `json:"kernel"`
	Platform Platform          `json:"platform"`
	// Running is /proc/cmdline now.
	Running string `json:"running_cmdline"`
	// Changes turn the configured parameters into ConfiguredAfter.
	Changes         []Change `json:"changes"`
	ConfiguredAfter string   `json:"configured_after"`
	// Predicted is the command line the kernel would get after the restart.
	Predicted           string          `json:"predicted_cmdline"`
	PredictedMode       mitigation.Mode `json:"predicted_mode"`
	PredictedModeReason string          `json:"predicted_mode_reason"`
	// Steps are the exact commands for the platform, in order.
	Steps []Step `json:"steps"`
	// Precedence are the rules of the running kernel version.
	Precedence []mitigation.KBRule `json:"precedence"`
	// GivenUp are files that go from mitigated to vulnerable.
	GivenUp []Loss `json:"given_up"`
	// Weakened are files that stay mitigated with a sub-protection off.
	Weakened []Loss `json:"weakened"`
	// Kept are mitigated files the target does not turn off although it
	// might seem to (an always-on part, or a per-bug parameter that
	// overrides mitigations=off).
	Kept []Loss `json:"kept"`
	// Regained are vulnerable files the target mitigates again.
	Regained []Loss `json:"regained"`
	// Changed are files not mitigated now whose state the target changes
	// (the model's Becomes: vmscape=force on a CPU not affected, a
	// guest's unknown line turned off), To the predicted text or state.
	Changed []Loss `json:"changed"`
	// Files are the model's prediction of every vulnerability file the
	// machine shows under the predicted command line
	// (mitigation.Knowledge.PredictFiles): the lists above, gains and the
	// files nothing changes included; a proof compares each with its boot.
	Files []mitigation.FileView `json:"files"`
	// Toggles are target parameters that are not CPU mitigations.
	Toggles []Toggle `json:"toggles"`
	// GuestCaveat is set inside a VM guest: what a guest's setting can and
	// cannot change.
	GuestCaveat string `json:"guest_caveat,omitempty"`
	// Alternatives keep the cheap protections.
	Alternatives []mitigation.KBAlternative `json:"alternatives"`
	// NotOffered are the alternatives left out: not for this machine's
	// architecture, vendor, family, kernel or platform, or what it
	// already runs.
	NotOffered []NotOffered `json:"not_offered"`
	Warnings   []string     `json:"warnings"`
	// Proof is advise --prove's boot of the target beside its prediction
	// (nil without --prove).
	Proof *proven.Proof `json:"proof,omitempty"`
}

// For computes the advice for reaching target on the machine described
// by s and p. It changes nothing.
func For(s *sysinfo.Snapshot, p Platform, t mitigation.Target, kb *mitigation.Knowledge) Advice {
	release := s.Kernel.Release
	a := Advice{Schema: AdviceSchema, Target: t, Kernel: release, Platform: p,
		Running: strings.TrimSpace(s.Cmdline.Raw), Changes: []Change{}, Steps: []Step{},
		GivenUp: []Loss{}, Weakened: []Loss{}, Kept: []Loss{}, Regained: []Loss{}, Changed: []Loss{},
		Toggles: []Toggle{}, Alternatives: []mitigation.KBAlternative{}, NotOffered: []NotOffered{}, Warnings: []string{}}
	running := mitigation.ParseCmdline(s.Cmdline.Raw).Params

	// The edit applies to what is configured; WSL's own part of the
	// command line is not in .wslconfig, so an unreadable .wslconfig
	// counts as empty, and any other unreadable file as the running line.
	base := running
	var baseInit []string // words after "--" in the configuration
	switch {
	case p.Kind == PlatformUnknown:
	case p.Known:
		cfg := mitigation.ParseCmdline(p.Configured)
		base, baseInit = cfg.Params, cfg.InitArgs
	case p.Kind == PlatformWSL:
		base = nil
		a.Warnings = append(a.Warnings, fmt.Sprintf("cannot read the .wslconfig (%s); the changes below assume it has no kernelCommandLine: check with sectax wslconfig show", orUnknownErr(p.ConfigError)))
	default:
		a.Warnings = append(a.Warnings, fmt.Sprintf("cannot read %s (%s); the changes below are relative to the running command line", p.ConfigPath, orUnknownErr(p.ConfigError)))
	}
	after := applyTarget(base, t)
	a.Changes = diff(base, after)
	// grubby and kernelstub remove the old arguments and append the new
	// ones; every other way (wslconfig set, a line written whole) keeps a
	// replaced parameter in its place.
	appends := p.Kind == PlatformGrubby || p.Kind == PlatformKernelstub
	if appends {
		after = applyChanges(base, a.Changes, true)
	}
	a.ConfiguredAfter = mitigation.Cmdline{Params: after, InitArgs: baseInit}.String()

	predicted := applyChanges(running, a.Changes, appends)
	if p.AllEntries != "" {
		predicted = withAllEntries(running, a.Changes, appends, mitigation.ParseCmdline(p.AllEntries).Params)
	}
	a.Predicted = mitigation.Format(predicted)
	if init := mitigation.ParseCmdline(s.Cmdline.Raw).InitArgs; init != nil {
		// The words after "--" go to init; they stay on the line.
		a.Predicted = strings.TrimSpace(a.Predicted + " -- " + strings.Join(init, " "))
		if base == nil || p.Kind == PlatformUnknown {
			a.ConfiguredAfter = a.Predicted
		}
	}
	a.PredictedMode, a.PredictedModeReason = mitigation.Classify(predicted).ForArch(s.CPU.Arch).ModeFor(s.Kernel.Release)
	a.Steps = steps(s, p, t, a)
	a.Precedence = kb.PrecedenceFor(release)
	if a.Precedence == nil {
		a.Precedence = []mitigation.KBRule{}
	}

	guest := s.Hypervisor.Guest || s.WSL != nil
	newer := kb.PerBugOverrides(release)
	arch := s.CPU.Arch
	// The model (mitigation.Knowledge.Predict) for the running and the
	// predicted command line. Parameters newer than the kernel's mainline
	// version are kept: distributions backport them (so the list errs
	// towards showing what may be given up), and a warning says so.
	m := s.Machine()
	// The model's per-file answer (PredictFiles), the one decide's options
	// and the alternatives read.
	nowFiles, _ := kb.PredictFiles(m, predicted)
	a.Files = mitigation.Views(nowFiles)
	beforeAll, nowAll := predictedFiles(kb, m, running), byName(nowFiles)
	for _, v := range s.Vulnerabilities {
		e, _ := kb.LookupVulnerability(v.Name)
		before, now := beforeAll[v.Name].OffState, nowAll[v.Name].OffState
		loss := Loss{Name: v.Name, From: strings.TrimSpace(v.Raw)}
		if guest {
			loss.GuestNote = e.GuestNote(arch, s.WSL != nil)
			// Notes that hold only where the line shows their condition.
			if facts := e.Facts(v.Raw, s.WSL != nil); len(facts) > 0 {
				loss.GuestNote = strings.TrimSpace(loss.GuestNote + " " + strings.Join(facts, " "))
			}
		}
		switch v.State {
		case mitigation.Mitigated:
			// The classes are the model's (Knowledge.ClassOf), the same
			// decide's options give for the same line.
			class := nowAll[v.Name].Class
			if class == "" || class == beforeAll[v.Name].Class {
				break
			}
			_, weakened := kb.KeptAnyway(arch, v.Name, v.Raw)
			loss.To, loss.By = loss.From, now.By
			switch {
			case class == mitigation.ClassGivenUp:
				loss.To = "Vulnerable"
				loss.Explanation = kb.ExplainChange(v.Name, loss.From, loss.To)
				a.GivenUp = append(a.GivenUp, loss)
			case class == mitigation.ClassWeakened && now.Off:
				loss.To = weakened
				loss.Explanation = fmt.Sprintf("%s: stays mitigated, but %s turns a part off: %s → %s", v.Name, now.By, loss.From, weakened)
				a.Weakened = append(a.Weakened, loss)
			case class == mitigation.ClassWeakened:
				loss.To = loss.From + " (with " + now.By + ")"
				one, _ := kb.OneLiner(v.Name)
				loss.Explanation = fmt.Sprintf("%s: stays mitigated, but %s weakens part of it — %s", v.Name, now.By, one)
				if now.Kept != "" {
					loss.Explanation = fmt.Sprintf("%s: stays mitigated (%s overrides mitigations=off), but the parts it does not select stay AUTO, which %s turns off — %s", v.Name, now.Kept, now.By, one)
				}
				a.Weakened = append(a.Weakened, loss)
			case now.Off:
				loss.Explanation = fmt.Sprintf("%s: stays %q: no parameter turns that part off", v.Name, loss.From)
				if arch != "" && arch != "x86" {
					loss.Explanation = fmt.Sprintf("%s: stays %q: on %s no parameter turns it off", v.Name, loss.From, arch)
				}
				if strings.Contains(loss.From, "; ") {
					loss.Explanation += " (the sub-fields after ';' may change)"
				}
				a.Kept = append(a.Kept, loss)
			case now.Rule == mitigation.RuleKASLRKeepsKPTI:
				loss.Explanation = "meltdown: stays \"Mitigation: PTI\" while KASLR is on: arm64 keeps KPTI for KASLR whatever mitigations= says; add nokaslr (or kpti=0) to turn it off"
				a.Kept = append(a.Kept, loss)
			case now.Rule == mitigation.RuleVERW:
				loss.Explanation = fmt.Sprintf("%s: stays %q: its CPU-buffer clear (VERW) is shared with %s, which stays mitigated, so the kernel keeps it; turn all of mds, tsx_async_abort, mmio_stale_data and reg_file_data_sampling off to drop it", v.Name, loss.From, now.Kept)
				a.Kept = append(a.Kept, loss)
			case now.Rule == mitigation.RuleIBRSTrumps:
				loss.Explanation = fmt.Sprintf("%s: stays %q: on Intel the kernel sets retbleed's method from spectre_v2's IBRS mode, which stays (Linux 6.16+)", v.Name, loss.From)
				a.Kept = append(a.Kept, loss)
			default:
				loss.By = now.Kept
				loss.Explanation = fmt.Sprintf("%s: stays mitigated: %s overrides mitigations=off (%s)", v.Name, now.Kept, overrideRange(kb, now.Kept))
				a.Kept = append(a.Kept, loss)
			}
		case mitigation.Vulnerable:
			if before.Off && !now.Off {
				loss.To = "Mitigation: …"
				loss.Explanation = kb.ExplainChange(v.Name, loss.From, "mitigated")
				a.Regained = append(a.Regained, loss)
				continue
			}
		}
		if f := nowAll[v.Name]; v.State != mitigation.Mitigated && f.Becomes != "" && f.Becomes != beforeAll[v.Name].Becomes {
			loss.To, loss.By = f.To, f.By
			if loss.To == "" {
				loss.To = string(f.Becomes)
			}
			loss.Explanation = fmt.Sprintf("%s: %s → %s (%s)", v.Name, loss.From, loss.To, f.By)
			a.Changed = append(a.Changed, loss)
		}
	}

	for _, tp := range t.Params {
		if kp, ok := kb.LookupParam(tp.Key()); ok && !kp.Mitigation {
			a.Toggles = append(a.Toggles, Toggle{Param: tp.Raw, Summary: kp.Summary})
		}
	}
	if guest {
		a.GuestCaveat = kb.VMGuestGeneral
		if s.WSL != nil {
			a.GuestCaveat += " " + kb.WSLGeneral
		}
	}
	if t.Kind == mitigation.KindOff || hasGlobalOff(t.Params) {
		a.Alternatives, a.NotOffered = alternatives(kb, s, running)
	}
	a.Warnings = append(a.Warnings, warnings(s, p, t, a, newer, kb)...)
	if n := kb.UncertainNote(s.Machine()); n != "" {
		a.Warnings = append(a.Warnings, n)
	}
	return a
}

// predictedFiles is kb.PredictFiles for params on m, by file name.
func predictedFiles(kb *mitigation.Knowledge, m mitigation.Machine, params []mitigation.Param) map[string]mitigation.FilePrediction {
	fs, _ := kb.PredictFiles(m, params)
	return byName(fs)
}

// byName indexes a per-file prediction by file name.
func byName(fs []mitigation.FilePrediction) map[string]mitigation.FilePrediction {
	out := make(map[string]mitigation.FilePrediction, len(fs))
	for _, f := range fs {
		out[f.Name] = f
	}
	return out
}

func hasGlobalOff(params []mitigation.Param) bool {
	m := mitigation.Classify(params)
	return m.Global != nil && m.Global.Option == "off"
}

// applyTarget returns the configured parameters after the target: off and
// PARAMS merge their parameters in (a parameter setting the same thing is
// replaced); auto removes mitigations= (unless it is plain auto) and every
// per-bug parameter that turns a mitigation off.
func applyTarget(base []mitigation.Param, t mitigation.Target) []mitigation.Param {
	if t.Kind != mitigation.KindAuto {
		return mitigation.Merge(base, t.Params)
	}
	cls := mitigation.Classify(base)
	var out []mitigation.Param
	for i, p := range base {
		r := relevantAt(cls, base, i)
		if r != nil && (r.Kind == mitigation.KindGlobal && r.Effect != mitigation.EffectSelect && r.Effect != mitigation.EffectOn ||
			r.Kind == mitigation.KindBug && (r.Effect == mitigation.EffectOff || r.Effect == mitigation.EffectInvalid)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// relevantAt finds the classification of base[i] (Classify keeps the
// order of the relevant parameters).
func relevantAt(cls mitigation.Mitigations, base []mitigation.Param, i int) *mitigation.Relevant {
	for k := range cls.Params {
		if cls.Params[k].Param == base[i] {
			return &cls.Params[k]
		}
	}
	return nil
}

// diff lists the edits from base to after.
func diff(base, after []mitigation.Param) []Change { return mitigation.Diff(base, after) }

// applyChanges applies the configured edits to the running command line
// with the same merge: removed tokens go, a replacing token takes the
// place of the one it replaces (with appendReplaced, as grubby does, it
// goes to the end instead), new ones come last.
func applyChanges(running []mitigation.Param, changes []Change, appendReplaced bool) []mitigation.Param {
	drop := map[string]bool{}
	var set []mitigation.Param
	for _, c := range changes {
		if c.Op == "remove" || appendReplaced && c.Old != "" {
			drop[c.Old] = true
		}
		if c.New != "" {
			set = append(set, mitigation.ParseCmdline(c.New).Params...)
		}
	}
	var out []mitigation.Param
	for _, p := range running {
		if !drop[p.Raw] {
			out = append(out, p)
		}
	}
	return mitigation.Merge(out, set)
}

// withAllEntries is the next boot's line where the edit goes to GRUB's
// GRUB_CMDLINE_LINUX_DEFAULT and GRUB_CMDLINE_LINUX (fixed) comes first and
// stays as it is: the changes apply to the rest of the running line, and
// fixed's words go before it, so that a mitigations=off there is still
// read first (kernel/cpu.c reads every mitigations= in turn; from 6.17 a
// vector it clears stays cleared) and a per-bug value there still counts
// where the edit removes its copy.
func withAllEntries(running []mitigation.Param, changes []Change, appendReplaced bool, fixed []mitigation.Param) []mitigation.Param {
	// The running line is BOOT_IMAGE and root=, then GRUB_CMDLINE_LINUX,
	// then the _DEFAULT words: fixed goes back where its first word was
	// (first when the running line lacks it), the edited rest after it.
	var head, rest []mitigation.Param
	at := -1
	for i, p := range running {
		if at < 0 && len(fixed) > 0 && p.Raw == fixed[0].Raw {
			at = i
		}
	}
	if at < 0 {
		at = 0
	}
	head = slices.Clone(running[:at])
	rest = slices.Clone(running[at:])
	for _, f := range fixed {
		if i := slices.IndexFunc(rest, func(p mitigation.Param) bool { return p.Raw == f.Raw }); i >= 0 {
			rest = slices.Delete(rest, i, i+1)
		}
	}
	edited := applyChanges(slices.Concat(head, rest), changes, appendReplaced)
	// head's words are unedited by a change to the _DEFAULT line unless
	// they set the same thing; keep the edited line's order and put fixed
	// after head's surviving words.
	n := 0
	for n < len(edited) && n < len(head) && edited[n].Raw == head[n].Raw {
		n++
	}
	return slices.Concat(edited[:n], fixed, edited[n:])
}

// warnings are the remarks that do not fit elsewhere.
func warnings(s *sysinfo.Snapshot, p Platform, t mitigation.Target, a Advice, newer bool, kb *mitigation.Knowledge) []string {
	var w []string
	w = append(w, p.ConfigWarnings...)
	if len(a.Changes) == 0 {
		w = append(w, fmt.Sprintf("the configuration already says this: nothing to change%s", restartHint(p)))
	}
	for _, tp := range t.Params {
		if why, _ := mitigation.Unaccepted(tp); why != "" {
			w = append(w, fmt.Sprintf("%s: kernel %s logs it and keeps what it cannot read as it was (the prediction above is what it makes of it); check the value in Documentation/admin-guide/kernel-parameters.txt", why, s.Kernel.Release))
		}
	}
	if g := mitigation.Classify(t.Params).ForArch(s.CPU.Arch).Global; g != nil && g.Unsupported != "" {
		w = append(w, fmt.Sprintf("attack-vector controls (mitigations=%s) exist on x86 only; this %s kernel logs \"Unsupported mitigations=%s\" and keeps every mitigation on", g.Value, g.Unsupported, g.Value))
	} else if g != nil && len(g.VectorsOff) > 0 && !newer {
		w = append(w, fmt.Sprintf("attack-vector controls (mitigations=%s) need Linux 6.17+; kernel %s rejects them (\"Unsupported mitigations\")", g.Value, s.Kernel.Release))
	}
	if c := s.Kernel.Config; c != nil && c.CPUMitigations == "n" && len(t.Params) > 0 {
		w = append(w, fmt.Sprintf("this kernel is built without %s (%s): it does not support mitigations= at all", mitigation.GlobalSwitchConfig(s.Kernel.Release), c.Source))
	}
	if p.AllEntries != "" {
		for _, r := range mitigation.Classify(mitigation.ParseCmdline(p.AllEntries).Params).Params {
			if r.Kind == mitigation.KindToggle {
				continue
			}
			if r.Kind == mitigation.KindGlobal {
				w = append(w, fmt.Sprintf("GRUB_CMDLINE_LINUX in /etc/default/grub also sets %s: it comes first on the command line and the kernel reads every mitigations= in turn (from Linux 6.17 a vector it turns off stays off whatever GRUB_CMDLINE_LINUX_DEFAULT says; before, the last value the kernel accepts wins); the prediction counts it, and it stays unless you remove it there", r.Raw))
				continue
			}
			w = append(w, fmt.Sprintf("GRUB_CMDLINE_LINUX in /etc/default/grub also sets %s: it comes first on the command line, so GRUB_CMDLINE_LINUX_DEFAULT overrides a repeated parameter, but a different one (nopti next to mitigations=auto) still counts; remove it there if it works against the target", r.Raw))
		}
	}
	if arch := s.CPU.Arch; arch != "" && arch != "x86" {
		for _, raw := range kb.Predict(s.Machine(), t.Params).Ignored {
			w = append(w, fmt.Sprintf("%s: the %s kernel does not parse it (Documentation/admin-guide/kernel-parameters.txt names the architectures of each parameter): it changes nothing here", raw, arch))
		}
	}
	old := TooOld(kb, s.Kernel.Release, t.Params)
	for _, tp := range t.Params {
		if since, ok := old[tp.Raw]; ok {
			w = append(w, MayIgnore(tp.Raw, since, s.Kernel.Release))
		}
	}
	for _, d := range p.DropIns {
		w = append(w, fmt.Sprintf("%s sets a GRUB_CMDLINE_LINUX variable and is read after /etc/default/grub: check that it does not override the change", d))
	}
	if e := s.VulnerabilitiesError(); s.Vulnerabilities == nil && e != "" {
		w = append(w, sysinfo.VulnerabilitiesDir+" cannot be read ("+e+"): what is given up cannot be listed until sectax runs as a user who may read it")
	} else if s.Vulnerabilities == nil {
		w = append(w, "no /sys/devices/system/cpu/vulnerabilities files: what is given up cannot be listed for this machine")
	}
	return w
}

// MayIgnore is the warning that kernel release may ignore raw, which came
// with mainline Linux since (a proof's boot answers it: proof.Advice).
func MayIgnore(raw, since, release string) string {
	return fmt.Sprintf("%s came with mainline Linux %s; kernel %s ignores it unless its distribution backported it: after the reboot, sectax verify shows which", raw, since, release)
}

func restartHint(p Platform) string {
	if p.Kind == PlatformWSL {
		return "; if the running kernel differs, run wsl --shutdown in Windows and reopen the distro"
	}
	return "; if the running kernel differs, reboot"
}

// verifyArg is the --expect argument that checks the target.
func verifyArg(t mitigation.Target) string {
	if t.Kind != mitigation.KindParams {
		return t.Kind
	}
	return shellQuote(mitigation.Format(t.Params))
}

// ShellQuote quotes s for a POSIX shell when it needs it (a command line
// shown for a person to copy: advice, a lab's QEMU command line).
func ShellQuote(s string) string { return shellQuote(s) }

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=.,:/@+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// names returns the parameter names of changes of the given ops.
func names(changes []Change, ops ...string) []string {
	var out []string
	for _, c := range changes {
		if slices.Contains(ops, c.Op) {
			out = append(out, mitigation.ParseCmdline(c.Old).Params[0].Name)
		}
	}
	return out
}

// tokens returns the tokens of changes of the given ops (new side for add
// and replace, old side for remove).
func tokens(changes []Change, ops ...string) []string {
	var out []string
	for _, c := range changes {
		if !slices.Contains(ops, c.Op) {
			continue
		}
		if c.Op == "remove" {
			out = append(out, c.Old)
		} else {
			out = append(out, c.New)
		}
	}
	return out
}

func orUnknownErr(s string) string {
	if s == "" {
		return "unknown error"
	}
	return s
}

// overrideRange is the kernel range in which a per-bug parameter overrides
// mitigations=off ("Linux 6.17+", "Linux 6.18+").
func overrideRange(kb *mitigation.Knowledge, token string) string {
	p := mitigation.ParseCmdline(token).Params
	if len(p) == 1 {
		if kp, ok := kb.LookupParam(p[0].Key()); ok && kp.OverridesOffSince != "" {
			return "Linux " + kp.OverridesOffSince + "+"
		}
	}
	return "Linux 6.17+"
}
