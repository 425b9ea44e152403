// Package decide is the model of `sectax decide`: the options of dropping
// attack vectors on this machine, what each gives up here (by the model of
// the kernel's decision), what each saves per workload (measured runs of
// the vector plan, never an estimate), and the option that keeps the
// vectors a user needs.
package decide

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/sysinfo"
)

// Schema is the value of the "schema" field of the decision document.
const Schema = "sectax.decide/v1"

// Option names. The vector sets are named as the vector plan's
// configurations (attribute.VectorSets); keep-all is its "on".
const (
	KeepAll = "keep-all"
	Off     = "off"
)

// Profiles map common situations to the vectors they need (docs/decide.md
// gives the reasons).
var Profiles = map[string][]string{
	// One developer's own code in a WSL 2 guest: the guest kernel is kept
	// safe from programs (a compromised dependency), nothing else runs here.
	"wsl-dev": {"user_kernel"},
	// Untrusted jobs (pull requests) run as processes or containers.
	"ci-runner": {"user_kernel", "user_user"},
	// Runs other people's VMs.
	"vm-host": {"user_kernel", "user_user", "guest_host", "guest_guest"},
	// Several users' programs side by side.
	"shared-server": {"user_kernel", "user_user"},
	// A browser runs untrusted JavaScript next to everything else.
	"desktop": {"user_kernel", "user_user"},
}

// ProfileNames are the profiles in the order help shows them.
var ProfileNames = []string{"wsl-dev", "ci-runner", "vm-host", "shared-server", "desktop"}

// Saving is what an option saves on one workload against keep-all, from
// stored runs: how much slower keep-all is, in percent, with the 95%
// interval compare gives the ratio.
type Saving struct {
	Workload    string          `json:"workload"`
	Params      string          `json:"params,omitempty"`
	Metric      string          `json:"metric"`
	Pct         float64         `json:"saving_pct"`
	Interval    *stats.Interval `json:"saving_pct_interval"`
	Significant bool            `json:"significant"`
	N           string          `json:"n,omitempty"`
	// Claim is which of three the saving is (ClaimSaves, ClaimNothing,
	// ClaimImprecise: claimOf); Equivalence and DetectablePct are
	// compare's verdict against the margin and the smallest change the
	// runs could have detected; Remeasure, for ClaimImprecise, the command
	// that would measure it precisely enough.
	Claim         string               `json:"claim"`
	Equivalence   *compare.Equivalence `json:"equivalence"`
	DetectablePct *float64             `json:"detectable_pct"`
	Remeasure     string               `json:"remeasure,omitempty"`
}

// Option is one row of the decision.
type Option struct {
	Name string `json:"name"`
	// Config is the vector plan's configuration whose runs measure it.
	Config string `json:"config"`
	// Cmdline is what to add to the command line, in this kernel's syntax
	// ("" for keep-all).
	Cmdline string   `json:"cmdline"`
	Drops   []string `json:"drops"`
	// GivesUp are the files mitigated here that the model predicts off.
	GivesUp []string `json:"gives_up"`
	// Weakened are the files mitigated here that stay mitigated with a
	// part turned off (spectre_v2 under spectre_v2_user=off: its STIBP/IBPB
	// sub-field), never counted as given up.
	Weakened []string `json:"weakened"`
	// Inexact says what a per-bug spelling cannot reproduce.
	Inexact []string `json:"inexact,omitempty"`
	// SameAs names an earlier option this one equals here.
	SameAs string `json:"same_as,omitempty"`
	// Unseen is true when the vulnerability files cannot be read: what
	// the option gives up here cannot be told (GivesUp is empty for want
	// of files, not because it keeps everything), and it is never folded
	// into another option.
	Unseen bool `json:"gives_up_unseen,omitempty"`
	// Current is true for the option the running command line already is
	// (the vectors it drops are the option's).
	Current bool `json:"current"`
	// Restores are the vectors the running command line drops that this
	// option keeps: applying it turns them back on.
	Restores []string `json:"restores"`
	// Saving is null until runs of Config and on are stored.
	Saving []Saving `json:"saving"`
	// Measure is the command that would measure it (when Saving is null).
	Measure string `json:"measure,omitempty"`
	// Files are the model's prediction of every vulnerability file under
	// the option's line added to the running one (PredictLine, the path
	// advise --target takes too): gains and unchanged files included.
	Files []mitigation.FileView `json:"files"`
	// line is the option's own command line, which a proof boots even
	// where the model folds the option into an earlier one (SameAs) and
	// Cmdline is that one's ("": no parameter spells it here).
	line string
}

// Facts are what the machine says about the vectors.
type Facts struct {
	Guest   bool `json:"guest"`
	WSL     bool `json:"wsl"`
	KVM     bool `json:"kvm"`
	SMTOff  bool `json:"smt_off"`
	Vectors bool `json:"vector_controls"`
	// FixedOff is true when GRUB_CMDLINE_LINUX sets mitigations=off on a
	// 6.17+ kernel: read first, it keeps every vector off whatever an
	// option adds, so no option restores one.
	FixedOff bool `json:"fixed_off,omitempty"`
	// Unreadable is true when the vulnerability files cannot be read:
	// the options' sets are then unknown, not empty.
	Unreadable bool   `json:"vulnerabilities_unreadable,omitempty"`
	Kernel     string `json:"kernel"`
	// RunningDrops are the vectors the running command line already drops
	// (mitigations=auto,no_…); the options are relative to the kernel's
	// defaults, not to it.
	RunningDrops []string `json:"running_drops"`
	// Notes say what the facts mean for the vectors.
	Notes []string `json:"notes"`
}

// Decision is the `sectax decide --format json` document.
type Decision struct {
	Schema  string   `json:"schema"`
	Facts   Facts    `json:"machine"`
	Options []Option `json:"options"`
	// Protect are the vectors kept (given, or the profile's, with the
	// machine's additions); nil without --protect or --profile.
	Protect     []string `json:"protect"`
	Profile     string   `json:"profile,omitempty"`
	Recommended *string  `json:"recommended"`
	Why         string   `json:"why,omitempty"`
	// Line is the command line to apply when it is not the recommended
	// option's own: the option plus the per-bug values that keep what a
	// kept vector relies on (mitigation.Knowledge.ProtectionLost).
	Line   string        `json:"line,omitempty"`
	Steps  []advise.Step `json:"steps,omitempty"`
	Verify string        `json:"verify,omitempty"`
	Guide  []string      `json:"guide,omitempty"`
	Notes  []string      `json:"notes"`
	// Proof is decide --prove's side-by-side (nil without --prove).
	Proof *proven.Proof `json:"proof,omitempty"`
}

// Input is what Decide starts from.
type Input struct {
	Snap     *sysinfo.Snapshot
	Platform advise.Platform
	KB       *mitigation.Knowledge
	// Host is this machine when Snap is not (decide --prove decides on the
	// booted kernel's snapshot): how its savings are measured is this
	// machine's. nil: Snap.
	Host *sysinfo.Snapshot
	// Root is the machine's root (/ or --root): sysinfo.KVMLoaded reads it.
	Root string
	// Arms are the stored runs by configuration (attribute.StoredArms).
	Arms []attribute.Arm
	// Protect is --protect (nil when not given; empty for none).
	Protect []string
	Profile string
	// AnyMachine (--any-machine) takes the savings from every stored run
	// of the vector plan, whatever kernel and CPU measured it; by default
	// only this machine's (machineArms).
	AnyMachine bool
	// MarginPct is --margin: a saving within ±MarginPct% is "costs nothing
	// beyond ±M% here" (stats.DefaultMarginPct when zero).
	MarginPct float64
}

// ParseProtect parses --protect: a comma list of vectors, or none.
func ParseProtect(s string) ([]string, error) {
	if strings.TrimSpace(s) == "none" {
		return []string{}, nil
	}
	var vs []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			vs = append(vs, f)
		}
	}
	out, err := mitigation.SortVectors(vs)
	if err != nil || len(out) == 0 {
		return nil, exit.Usagef("--protect %q: give a comma list of %s, or none", s, strings.Join(mitigation.Vectors, ", "))
	}
	return out, nil
}

// Decide builds the decision.
func Decide(in Input) (*Decision, error) {
	m := in.Snap.Machine()
	d := &Decision{Schema: Schema, Options: []Option{}, Notes: []string{}}
	d.Facts = facts(in, m)
	d.Options = options(in, m)
	if m.Vulns == nil {
		// Honesty: without the vulnerability files (a container, a masked
		// /sys) the model has nothing to predict from: no option can be
		// said to change nothing, and nothing is recommended.
		d.Facts.Unreadable = true
		d.Notes = append(d.Notes, "the vulnerability files cannot be read here (/sys/devices/system/cpu/vulnerabilities: a container or a masked /sys): sectax cannot tell what an option gives up, so it recommends none; run decide on the host, or boot the kernel with --prove")
		if in.Protect != nil || in.Profile != "" {
			if in.Profile != "" {
				if _, ok := Profiles[in.Profile]; !ok {
					return nil, exit.Usagef("--profile %q: give one of %s", in.Profile, strings.Join(ProfileNames, ", "))
				}
			}
			arms, notes := machineArms(in)
			d.Facts.Notes = append(d.Facts.Notes, notes...)
			savings(d, arms, in)
			return d, nil
		}
	}
	if n := in.KB.UncertainNote(m); n != "" {
		d.Notes = append(d.Notes, n)
	}
	arms, notes := machineArms(in)
	d.Facts.Notes = append(d.Facts.Notes, notes...)
	arms, notes = evidence(d.Options, arms, in.KB)
	d.Facts.Notes = append(d.Facts.Notes, notes...)
	savings(d, arms, in)
	protect := in.Protect
	if in.Profile != "" {
		p, ok := Profiles[in.Profile]
		if !ok {
			return nil, exit.Usagef("--profile %q: give one of %s", in.Profile, strings.Join(ProfileNames, ", "))
		}
		if in.Protect != nil {
			return nil, exit.Usagef("give --protect or --profile, not both")
		}
		d.Profile = in.Profile
		protect = slices.Clone(p)
		if d.Facts.KVM {
			protect = append(protect, "guest_host", "guest_guest")
			d.Notes = append(d.Notes, "KVM is loaded here: the profile keeps guest_host and guest_guest for the VMs this kernel runs")
		}
	}
	if protect == nil {
		d.Guide = guide()
		return d, nil
	}
	// Attacks between two programs or two VMs also run across the SMT
	// siblings of one core: keeping user_user or guest_guest keeps
	// cross_thread, unless SMT is off.
	if (slices.Contains(protect, "user_user") || slices.Contains(protect, "guest_guest")) && !d.Facts.SMTOff {
		protect = append(protect, "cross_thread")
	}
	d.Protect, _ = mitigation.SortVectors(protect)
	if d.Facts.KVM && !slices.Contains(d.Protect, "guest_host") {
		d.Notes = append(d.Notes, "KVM is loaded here: dropping guest_host leaves this kernel open to the VMs it runs")
	}
	rec, furthest := recommend(d)
	d.Recommended = &rec.Name
	// What the option keeps is every vector it does not drop, more than
	// the ones asked for when the option that drops the most keeps others.
	kept := slices.DeleteFunc(slices.Clone(mitigation.Vectors), func(v string) bool { return slices.Contains(rec.Drops, v) })
	d.Why = fmt.Sprintf("keeps %s", orNone(kept))
	if !slices.Equal(kept, d.Protect) {
		d.Why += fmt.Sprintf(" — needed: %s", orNone(d.Protect))
	}
	d.Why += fmt.Sprintf("; drops %s", orNone(rec.Drops))
	// One answer per question: a dropped vector can weaken a file a kept
	// vector also relies on (BHI's clearing on system calls goes with
	// guest_host, bhi_select_mitigation). Where a per-bug value keeps it
	// (6.17+), the line to apply adds it; else the answer says what is lost.
	line := rec.Cmdline
	lost, remedy := in.KB.ProtectionLost(m, mitigation.ParseCmdline(line).Params, d.Protect)
	if len(lost) > 0 && len(remedy) > 0 {
		fixed := strings.TrimSpace(line + " " + strings.Join(remedy, " "))
		if still, _ := in.KB.ProtectionLost(m, mitigation.ParseCmdline(fixed).Params, d.Protect); len(still) == 0 {
			d.Line = fixed
			d.Why += fmt.Sprintf("; the line adds %s: dropping %s alone would also weaken %s, which a kept vector relies on (on a CPU affected by BHI, spectre_v2's BHI clearing goes with guest_host even while user_kernel is kept; a per-bug value is not asked about vectors)", strings.Join(remedy, " "), orNone(rec.Drops), strings.Join(lost, ", "))
			lost = nil
		}
	}
	if len(lost) > 0 {
		d.Why += fmt.Sprintf("; but it gives up or weakens %s, which a kept vector relies on too", strings.Join(lost, ", "))
	}
	if furthest.Name != rec.Name {
		d.Why += fmt.Sprintf("; %s would keep them too but changes nothing on this kernel beyond %s", furthest.Name, rec.Name)
	}
	if rec.Current {
		d.Why += "; the running command line already is this option: nothing to change"
	}
	if line = rec.Cmdline; d.Line != "" {
		line = d.Line
	}
	if line != "" && rec.SameAs == "" && (!rec.Current || d.Line != "") {
		t, err := mitigation.ParseTarget(line)
		if err != nil {
			return nil, err
		}
		a := advise.For(in.Snap, in.Platform, t, in.KB)
		d.Steps = a.Steps
		d.Verify = "sectax verify --expect " + advise.ShellQuote(line)
	}
	return d, nil
}

func orNone(vs []string) string {
	if len(vs) == 0 {
		return "no vector"
	}
	return strings.Join(vs, ", ")
}

// recommend is the option that drops the most while keeping every vector
// of d.Protect: the options are nested, so the last one that keeps them,
// less one that changes nothing beyond the one before it (furthest is the
// last that keeps them).
func recommend(d *Decision) (best, furthest Option) {
	best, furthest = d.Options[0], d.Options[0]
	for _, o := range d.Options[1:] {
		if slices.ContainsFunc(o.Drops, func(v string) bool { return slices.Contains(d.Protect, v) }) {
			break
		}
		furthest = o
		if o.SameAs == "" {
			best = o
		}
	}
	return best, furthest
}

// allEntriesOff reports whether GRUB_CMDLINE_LINUX's mitigations= leave
// the global switch off (every token in turn, mitigation.FoldGlobal).
func allEntriesOff(all string) bool {
	var values []string
	for _, p := range mitigation.ParseCmdline(all).Params {
		if mitigation.Repeats(p) {
			values = append(values, p.Value)
		}
	}
	return len(values) > 0 && mitigation.FoldGlobal(values, true, true).Off
}

func facts(in Input, m mitigation.Machine) Facts {
	s := in.Snap
	// Whether this is a VM guest is this machine's fact, also where the
	// decision is made on a proof's boot (whose guest is QEMU's).
	where := s
	if in.Host != nil {
		where = in.Host
	}
	f := Facts{Guest: where.Hypervisor.Guest || where.WSL != nil, WSL: where.WSL != nil, KVM: sysinfo.KVMLoaded(in.Root),
		SMTOff:  s.SMT.Active != nil && !*s.SMT.Active || slices.Contains([]string{"off", "forceoff", "notsupported"}, s.SMT.Control),
		Vectors: in.KB.HasVectorControls(m), Kernel: s.Kernel.Release, Notes: []string{}}
	f.RunningDrops = in.KB.RunningVectorsOff(m, s.Cmdline.Raw)
	if f.RunningDrops == nil {
		f.RunningDrops = []string{}
	}
	if f.Vectors && allEntriesOff(in.Platform.AllEntries) {
		// kernel/cpu.c mitigations_parse_cmdline (6.17+): off clears every
		// attack vector and no later mitigations= sets one again, so the
		// line an option adds to GRUB_CMDLINE_LINUX_DEFAULT (read after
		// GRUB_CMDLINE_LINUX) turns nothing back on.
		f.FixedOff = true
		f.RunningDrops = slices.Clone(mitigation.Vectors)
		f.Notes = append(f.Notes, "GRUB_CMDLINE_LINUX in /etc/default/grub sets mitigations=off, which the kernel reads before the line an option adds to GRUB_CMDLINE_LINUX_DEFAULT: from Linux 6.17 a vector it turns off stays off, so no option turns one back on here; remove mitigations=off from GRUB_CMDLINE_LINUX first")
	} else if len(f.RunningDrops) > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("the running command line already drops %s: the options are relative to the kernel's defaults, so keep-all turns them back on; what it already gives up is not listed again, and a saving is measured against the running command line (on)", strings.Join(f.RunningDrops, ", ")))
	}
	if f.Guest {
		f.Notes = append(f.Notes, "this is a VM guest (WSL 2 included): guest_host and guest_guest protect only VMs this guest would host itself; the host's own protections are out of reach from here")
	}
	if f.KVM {
		f.Notes = append(f.Notes, "KVM is loaded (/sys/module/kvm): this kernel can run VMs, which need guest_host")
	}
	if f.SMTOff {
		f.Notes = append(f.Notes, "SMT is off: no two threads share a core, so cross_thread is moot")
	}
	if !f.Vectors && m.Arch == "x86" {
		f.Notes = append(f.Notes, fmt.Sprintf("kernel %s has no attack-vector controls (Linux %s+): the options are spelled with per-bug parameters", s.Kernel.Release, mitigation.VectorControlsSince))
	}
	if m.Arch != "x86" {
		f.Notes = append(f.Notes, "attack vectors are an x86 kernel's vocabulary: only keep-all and off apply here")
	}
	return f
}

// OffLine is the off option's own line on every kernel (a proof boots it
// even where the model folds off into keep-all).
const OffLine = "mitigations=off"

func options(in Input, m mitigation.Machine) []Option {
	kb := in.KB
	// Every option is relative to the kernel's defaults: what the running
	// command line already drops is shown (Facts.RunningDrops), each
	// option says which of those it turns back on (Restores), and the one
	// the running line already is, is Current.
	running := kb.RunningVectorsOff(m, in.Snap.Cmdline.Raw)
	fixedOff := kb.HasVectorControls(m) && allEntriesOff(in.Platform.AllEntries)
	if fixedOff {
		running, _ = mitigation.SortVectors(mitigation.Vectors)
	}
	restores := func(drops []string) []string {
		out := []string{}
		if fixedOff {
			// GRUB_CMDLINE_LINUX's mitigations=off keeps every vector off.
			return out
		}
		for _, v := range running {
			if !slices.Contains(drops, v) {
				out = append(out, v)
			}
		}
		return out
	}
	keep := Option{Name: KeepAll, Config: "on", Drops: []string{}, GivesUp: []string{}, Weakened: []string{}, Saving: []Saving{},
		Restores: restores(nil), Current: len(running) == 0}
	if len(running) > 0 {
		keep.Cmdline = "mitigations=auto"
	}
	keep.line = keep.Cmdline
	out := []Option{keep}
	prev := KeepAll
	for _, vs := range attribute.VectorSets {
		o := Option{Name: vs.Name, Config: vs.Name, GivesUp: []string{}, Weakened: []string{}}
		o.Drops, _ = mitigation.SortVectors(vs.Drop)
		o.Restores, o.Current = restores(o.Drops), slices.Equal(o.Drops, running)
		dv, ok, _ := kb.DropVectors(m, o.Drops)
		o.line = dv.Cmdline()
		last := out[len(out)-1]
		switch {
		case m.Vulns == nil:
			// Nothing to predict from: the option is its own line (in
			// the kernel's vector syntax; a per-bug spelling needs the
			// files), and what it gives up is unseen.
			o.Cmdline, o.Unseen, o.Inexact = dv.Cmdline(), true, dv.Inexact
			if dv.Syntax == "per-bug" {
				o.Inexact = append(o.Inexact, "the vulnerability files cannot be read: no per-bug line can be computed for this kernel")
			}
			prev = o.Name
		case ok:
			o.Cmdline = dv.Cmdline()
			o.GivesUp = append(o.GivesUp, dv.Off...)
			o.Weakened = append(o.Weakened, dv.Weakened...)
			slices.Sort(o.GivesUp)
			slices.Sort(o.Weakened)
			o.Inexact = dv.Inexact
			if last.Cmdline != "" && slices.Equal(last.GivesUp, o.GivesUp) && slices.Equal(last.Weakened, o.Weakened) && dv.Syntax == "per-bug" {
				o.SameAs = prev
			} else {
				prev = o.Name
			}
		case dv.Syntax == "vectors" && !slices.Equal(last.Restores, o.Restores):
			// Nothing mitigated now goes, but it keeps other vectors
			// than the option before it (the running line drops some).
			o.Cmdline = dv.Cmdline()
			prev = o.Name
		default:
			o.SameAs = prev
			o.Cmdline = last.Cmdline
			o.GivesUp = slices.Clone(last.GivesUp)
			o.Weakened = slices.Clone(last.Weakened)
		}
		out = append(out, o)
	}
	off := Option{Name: Off, Config: "off", Cmdline: OffLine, Drops: slices.Clone(mitigation.Vectors), GivesUp: []string{}, Weakened: []string{}, Restores: []string{}, line: OffLine}
	// The sets are the model's Outcome, as advise --target off gives them.
	p := kb.Outcome(m, mitigation.ParseCmdline(off.Cmdline).Params)
	off.GivesUp, off.Weakened = p.GivenUp, p.Weakened
	if m.Vulns == nil {
		// Not "same as keep-all": it cannot be seen what it gives up.
		off.Unseen = true
	} else if len(p.Ignored) > 0 || len(off.GivesUp)+len(off.Weakened) == 0 {
		off.Cmdline = ""
		off.SameAs = KeepAll
	}
	out = append(out, off)
	for i := range out {
		out[i].Files = mitigation.Views(PredictLine(kb, in.Snap, out[i].Cmdline))
	}
	return out
}

// savings fills each option's Saving from the stored arms, by the same
// comparison attribute report makes (compare of on and the configuration);
// null, with the command that would measure it, when either side has no
// runs.
func savings(d *Decision, arms []attribute.Arm, in Input) {
	measure := measureWith(in, 0)
	var att *attribute.Attribution
	if len(arms) > 0 {
		att, _ = attribute.AttributeWith(arms, nil, compare.Options{MarginPct: in.MarginPct})
	}
	for i := range d.Options {
		o := &d.Options[i]
		if o.Name == KeepAll {
			continue
		}
		if att != nil && sameState(att, o.Config) {
			d.Facts.Notes = append(d.Facts.Notes, fmt.Sprintf("the runs labelled %s record the same state as on's (command line, vulnerability files, per-process controls): "+
				"'sectax compare on %s' says no mitigation changed, so they measure no saving of %s; measure it under its own command line (%s)", o.Config, o.Config, o.Name, measure))
		} else if att != nil {
			for _, wa := range att.Workloads {
				if compare.IsControl(wa.Workload) {
					continue // a negative control saves nothing: it vouches for the comparison
				}
				e := effect(wa, o.Config)
				if e == nil {
					continue
				}
				o.Saving = append(o.Saving, savingOf(wa, *e, in))
			}
		}
		if o.Saving == nil && o.SameAs == "" && !o.Current {
			o.Measure = measure
		}
	}
}

// measureWith is the command that measures the options' savings here: a
// campaign, which reboots this machine into each option's command line;
// in a guest whose command line its host sets (no boot loader here, not
// WSL) no reboot can change the line, so the lab, whose runs are QEMU
// guests' and count with --any-machine.
// With a precision (percent, above 0) the command asks for it
// (--precision).
func measureWith(in Input, precision float64) string {
	machine := in.Snap
	if in.Host != nil {
		machine = in.Host
	}
	prec := ""
	if precision > 0 {
		prec = " --precision " + strconv.FormatFloat(precision, 'f', -1, 64)
	}
	if host := advise.HostSetBy(machine, in.Platform); host != "" {
		return "sectax lab --plan vectors" + prec + " (this guest's command line is set by " + host + ", so no reboot here changes it), then sectax decide --any-machine"
	}
	return "sectax campaign start --plan vectors" + prec
}

func effect(wa attribute.WorkloadAttribution, config string) *attribute.Effect {
	if config == "off" {
		return wa.Total
	}
	for _, p := range wa.Parts {
		if p.Config == config {
			return &p.Effect
		}
	}
	for _, e := range wa.Others {
		if e.Config == config {
			return &e
		}
	}
	return nil
}

func guide() []string {
	return []string{
		"keep what code you do not trust could attack: user_kernel (programs → this kernel), user_user (programs → each other), guest_host (VMs → this kernel), guest_guest (VMs → each other), cross_thread (the same across the two threads of a core)",
		"--protect user_kernel,user_user picks the option that drops the most while keeping them; --protect none drops everything",
		"--profile wsl-dev|ci-runner|vm-host|shared-server|desktop picks a documented set (docs/decide.md)",
	}
}
