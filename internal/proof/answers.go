package proof

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/vm"
)

// Decision is decide --prove around decide.Decide: the default line is
// booted (or loaded) first, the decision is made on that boot's machine
// (the kernel and CPU booted), then every option's line is booted (or
// loaded) and laid beside its prediction. in.Snap is this machine
// (req.Host).
func Decision(ctx context.Context, req Request, in decide.Input) (*decide.Decision, error) {
	t0 := time.Now()
	req.Host = in.Snap
	ps, err := Start(ctx, req)
	if err != nil {
		return nil, err
	}
	defer ps.Close()
	// "boot N of M" counts the whole proof: M is known once the default
	// boot has decided the options; until then the progress says so.
	// off's line is every kernel's (decide.OffLine), so it boots beside
	// the default: one round of boots less on two cores.
	ps.req.Boots = -1
	first := func(l string) string {
		if l == "" {
			return "keep-all (the default command line)"
		}
		return decide.Off + " (" + l + ")"
	}
	if err := ps.Observe(ctx, []string{"", decide.OffLine}, first); err != nil {
		return nil, err
	}
	ps.req.Boots = 0
	host := in.Snap
	in.Host, in.Snap = host, ps.Snapshot("")
	d, err := decide.Decide(in)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, o := range d.Options {
		if l := strings.TrimSpace(o.ProofLine()); names[l] == "" {
			names[l] = o.Name
		}
	}
	if l := strings.TrimSpace(d.Line); l != "" && names[l] == "" {
		names[l] = decide.RecommendedRow
	}
	if err := ps.Observe(ctx, decide.ProofLines(d), func(l string) string { return names[l] + " (" + l + ")" }); err != nil {
		return nil, err
	}
	pin := ps.Input()
	if err := decide.Prove(d, pin, in.KB); err != nil {
		return nil, err
	}
	if note := asBooted("the options and their sets are those of", "not of", host, pin); note != "" {
		d.Proof.Notes = append(d.Proof.Notes, note)
	}
	ps.took(time.Since(t0))
	return d, nil
}

// Advice is advise --target X --prove: the default line and the target's
// parameters are booted (or loaded) together, the advice is made on the
// default boot's machine (the kernel and CPU booted) for this machine's
// platform, and the target's boot is laid beside its prediction.
func Advice(ctx context.Context, req Request, platform advise.Platform, target mitigation.Target, kb *mitigation.Knowledge) (*advise.Advice, error) {
	t0 := time.Now()
	ps, err := Start(ctx, req)
	if err != nil {
		return nil, err
	}
	defer ps.Close()
	line := mitigation.Format(target.Params)
	label := func(l string) string {
		if l == "" {
			return "the default command line"
		}
		return l
	}
	if err := ps.Observe(ctx, []string{"", line}, label); err != nil {
		return nil, err
	}
	base := ps.Snapshot("")
	a := advise.For(base, platform, target, kb)
	pin := ps.Input()
	p := proven.New(pin)
	row := p.Add("target "+target.String(), line, base, ps.Snapshot(line), a.Files, pin.Stored[line])
	if !row.Agree {
		a.Warnings = append(a.Warnings, fmt.Sprintf("the boot of the target %s the prediction above (%d file(s)): the proof's observed files are what this kernel does", verdictWords(row.Verdict), len(row.Disagreements)))
	}
	a.Warnings = bootedWarnings(a.Warnings, kb, target, base, ps.Snapshot(line))
	if note := asBooted("the advice is for", "not for", req.Host, pin); note != "" {
		p.Notes = append(p.Notes, note)
	}
	a.Proof = p
	ps.took(time.Since(t0))
	return &a, nil
}

// StoredAdvice is verify's proof: the stored boots of the running kernel's
// image (vm.DefaultImages below root) with the default line and the
// target's, laid beside advise's prediction; nil when none is stored.
// Nothing boots and nothing is made; a stored file refused is said as a
// warning on out.
func StoredAdvice(ctx context.Context, cacheDir, root string, host *sysinfo.Snapshot, platform advise.Platform, target mitigation.Target, kb *mitigation.Knowledge, out ui.Printer) *proven.Proof {
	image, _ := vm.DefaultImages(root, host.Kernel.Release)
	if image == "" {
		return nil
	}
	line := mitigation.Format(target.Params)
	pin, notes := Stored(ctx, cacheDir, image, line, host)
	said := map[string]bool{} // the cache is scanned twice (base and line): one line a refusal
	for _, n := range notes {
		if !said[n] {
			said[n] = true
			ui.Or(out).Notef("warning: %s", n)
		}
	}
	if pin == nil {
		return nil
	}
	base := pin.Obs[""]
	p := proven.New(*pin)
	a := advise.For(base, platform, target, kb)
	p.Add("expect "+target.String(), line, base, pin.Obs[line], a.Files, true)
	// The running files beside the proof's observation of the same line.
	where := "under tcg on QEMU's " + safetext.Line(pin.CPU)
	if pin.Accel == vm.AccelKVM {
		where = "under kvm on this CPU"
	}
	for _, v := range host.Vulnerabilities {
		for _, w := range pin.Obs[line].Vulnerabilities {
			if v.Name == w.Name && v.State != w.State {
				p.Notes = append(p.Notes, fmt.Sprintf("%s: this machine shows %q, the proof's boot of this line showed %q (%s)", v.Name, safetext.Clip(v.Raw, 120), safetext.Clip(w.Raw, 120), where))
			}
		}
	}
	return p
}

// bootedWarnings replaces the warnings that the booted kernel may ignore
// a value newer than its mainline version (advise.MayIgnore) by what its
// boot got showed: the files the line changed from the default boot base,
// or that it changed none.
func bootedWarnings(ws []string, kb *mitigation.Knowledge, target mitigation.Target, base, got *sysinfo.Snapshot) []string {
	old := advise.TooOld(kb, base.Kernel.Release, target.Params)
	if len(old) == 0 {
		return ws
	}
	var changed []string
	for _, w := range got.Vulnerabilities {
		if v, ok := proven.Vuln(base, w.Name); !ok || strings.TrimSpace(v.Raw) != strings.TrimSpace(w.Raw) {
			changed = append(changed, w.Name)
		}
	}
	out := []string{}
	for _, w := range ws {
		out = append(out, w)
		for raw, since := range old {
			if w != advise.MayIgnore(raw, since, base.Kernel.Release) {
				continue
			}
			rel := safetext.Line(base.Kernel.Release)
			switch {
			case len(changed) > 0 && len(old) == len(target.Params):
				out[len(out)-1] = fmt.Sprintf("%s came with mainline Linux %s, but the proof's boot of kernel %s with it changed %s: this kernel honours it (backported)", raw, since, rel, strings.Join(changed, ", "))
			case len(changed) == 0:
				out[len(out)-1] = fmt.Sprintf("%s came with mainline Linux %s, and the proof's boot of kernel %s with it changed no vulnerability file: this kernel ignores it, or it changes nothing on the CPU booted", raw, since, rel)
			default:
				out[len(out)-1] = w + fmt.Sprintf(" (the proof's boot of the whole line changed %s)", strings.Join(changed, ", "))
			}
		}
	}
	return out
}

// verdictWords is a row's verdict in a sentence.
func verdictWords(v string) string {
	if v == proven.VerdictReplaced {
		return "shows another mitigation than"
	}
	return "differs from"
}

// asBooted is the note that the answer is the booted kernel's and CPU's
// rather than this machine's, "" when they are the same under KVM.
func asBooted(what, not string, host *sysinfo.Snapshot, pin proven.Input) string {
	if host.Kernel.Release == pin.Release && pin.Accel == vm.AccelKVM {
		return ""
	}
	return fmt.Sprintf("%s kernel %s on the %s CPU as booted, %s this machine's running kernel %s on %s",
		what, safetext.Line(pin.Release), safetext.Line(pin.CPU), not, safetext.Line(host.Kernel.Release), safetext.Line(host.CPU.ModelName))
}

// took says how long the proof took and where its answer came from.
func (s *Session) took(d time.Duration) {
	pin := s.Input()
	if pin.Booted == 0 {
		s.req.Out.Notef("proof: answered from %d stored boot(s) in %s (%s), no boot", len(pin.Stored), d.Round(time.Millisecond), s.CacheDir())
		return
	}
	s.req.Out.Notef("proof: %d boot(s), %d stored before, in %s", pin.Booted, len(pin.Stored), d.Round(100*time.Millisecond))
}
