package attribute

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

// PlanSchema is the value of the "schema" field of the plan document.
const PlanSchema = "sectax.attribute-plan/v1"

// Configuration kinds in a plan.
const (
	KindBase        = "base"          // on and off
	KindLeaveOneOut = "leave-one-out" // one mitigation off
	KindCumulative  = "cumulative"    // one more mitigation off each step
	KindStudy       = "study"         // the study's tuned line and its halves
	KindVectors     = "vectors"       // attack vectors dropped (issue 28)
)

// VectorSets are the cumulative sets of attack vectors `sectax decide`
// weighs, least given up first; each is a configuration of the vector
// plan named as here (mitigations=off is the plan's "off").
var VectorSets = []struct {
	Name string
	Drop []string
}{
	{"no-guest", []string{"guest_host", "guest_guest"}},
	{"no-guest-cross_thread", []string{"guest_host", "guest_guest", "cross_thread"}},
	{"no-guest-cross_thread-user_user", []string{"user_user", "guest_host", "guest_guest", "cross_thread"}},
}

// VectorConfigName is the configuration of the vector plan that drops
// one vector alone ("no-user_kernel").
func VectorConfigName(vector string) string { return "no-" + vector }

// IsVectorConfig reports whether name is a configuration of the vector
// plan (VectorConfigName of a vector, or a VectorSets name).
func IsVectorConfig(name string) bool {
	for _, v := range mitigation.Vectors {
		if name == VectorConfigName(v) {
			return true
		}
	}
	return slices.ContainsFunc(VectorSets, func(s struct {
		Name string
		Drop []string
	}) bool {
		return s.Name == name
	})
}

// The study's tuned command line and its two halves.
const (
	studyOff  = "quiet loglevel=0 audit=0 vsyscall=none mitigations=off"
	studyRest = "quiet loglevel=0 audit=0 vsyscall=none"
)

// Design is what `sectax attribute plan` prints: the mitigations active on
// this kernel, the parameter that turns each off, and the configurations
// that attribute the tax to them.
type Design struct {
	Schema  string `json:"schema"`
	Kernel  string `json:"kernel"`
	Cmdline string `json:"cmdline"`
	// Active are the mitigations this kernel applies that a parameter can
	// turn off, most expensive first (knowledge-base cost of the mode).
	Active []Active `json:"active"`
	// Configurations are on, off, one leave-one-out per active mitigation,
	// the cumulative steps and the study set.
	Configurations []Planned `json:"configurations"`
	// Cumulative names the configurations of the waterfall in order, from
	// on to everything off one parameter at a time.
	Cumulative []string `json:"cumulative"`
	Notes      []string `json:"notes"`
}

// Active is one active mitigation.
type Active struct {
	// File is the vulnerability file ("meltdown").
	File string `json:"file"`
	Raw  string `json:"raw"`
	// Mode and Cost are the knowledge base's mode of the line.
	Mode string `json:"mode,omitempty"`
	Cost string `json:"cost,omitempty"`
	// Param is the token that turns it off on this kernel ("pti=off"); ""
	// when no single parameter does (mitigations=off only).
	Param string `json:"param"`
	// Config is the leave-one-out configuration that uses Param.
	Config string `json:"config,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Planned is one configuration with what it is expected to do here.
type Planned struct {
	bootconfig.Config
	Kind string `json:"kind"`
	// Expected are the vulnerability files it should turn off (from
	// mitigated to vulnerable): verification checks that they did.
	Expected []Change `json:"expected"`
	// Weakened stay mitigated with a part off (a sub-field changes).
	Weakened []Change `json:"weakened,omitempty"`
	// NoEffect says why a file a parameter names will not change (the
	// VERW buffer clear shared with another user, an always-on part, a
	// per-bug parameter that overrides mitigations=off).
	NoEffect []string `json:"no_effect,omitempty"`
	// Toggles are parameters that are no CPU mitigation (audit=0).
	Toggles []string `json:"toggles,omitempty"`
	// Drop are the attack vectors a vectors configuration drops.
	Drop []string `json:"drop,omitempty"`
	// SameAs names an earlier configuration with the same parameters
	// (one boot serves both).
	SameAs string `json:"same_as,omitempty"`
	// Boot is false when booting this configuration measures nothing new:
	// it is SameAs another, or a leave-one-out that changes no file here
	// (a VERW user kept on by another: no-verw switches them together).
	Boot bool `json:"boot"`
}

// Change is one vulnerability file a configuration changes.
type Change struct {
	File string `json:"file"`
	From string `json:"from"`
	To   string `json:"to"`
	By   string `json:"by"`
}

// costRank orders knowledge-base costs, most expensive first.
func costRank(c string) int {
	if i := slices.Index([]string{"high", "medium", "low", "none"}, c); i >= 0 {
		return i
	}
	return 4
}

// MakeDesign builds the plan for the kernel of s from the knowledge base:
// which mitigations are active (the files mitigations=off turns off here),
// the parameter that turns each off alone, and what every configuration is
// expected to change, by advise's predictions (precedence of the kernel
// version and the shared VERW rule included).
func MakeDesign(s *sysinfo.Snapshot, kb *mitigation.Knowledge) (*Design, error) {
	p := &Design{Schema: PlanSchema, Kernel: s.Kernel.Release, Cmdline: strings.TrimSpace(s.Cmdline.Raw),
		Active: []Active{}, Configurations: []Planned{}, Cumulative: []string{}, Notes: []string{}}
	if s.Vulnerabilities == nil {
		p.Notes = append(p.Notes, "this kernel has no vulnerability files: nothing to attribute (only on and off can be compared)")
	}
	raw := map[string]string{}
	for _, v := range s.Vulnerabilities {
		raw[v.Name] = strings.TrimSpace(v.Raw)
	}
	for _, f := range kb.ExpectedOff(s.Machine(), bootconfig.Off.Params) {
		a := Active{File: f, Raw: raw[f]}
		if m, ok := kb.ModeOf(f, raw[f]); ok {
			a.Mode, a.Cost = m.Name, m.Cost
		}
		a.Param, a.Note = offParam(s, kb, f)
		p.Active = append(p.Active, a)
	}
	sort.SliceStable(p.Active, func(i, j int) bool { return costRank(p.Active[i].Cost) < costRank(p.Active[j].Cost) })

	add := func(name, params, kind string) (string, error) {
		c := bootconfig.On
		if params != "" {
			var err error
			if c, err = bootconfig.Parse(name + "=" + params); err != nil {
				return "", fmt.Errorf("plan configuration %s: %w", name, err)
			}
		}
		c.Name = name
		for _, q := range p.Configurations {
			if q.String() == c.String() {
				pl := Planned{Config: c, Kind: kind, SameAs: q.Name, Expected: q.Expected, Weakened: q.Weakened, NoEffect: q.NoEffect, Toggles: q.Toggles}
				p.Configurations = append(p.Configurations, pl)
				return q.Name, nil
			}
		}
		p.Configurations = append(p.Configurations, expect(s, kb, c, kind))
		return name, nil
	}
	if _, err := add("on", "", KindBase); err != nil {
		return nil, err
	}
	if _, err := add("off", "mitigations=off", KindBase); err != nil {
		return nil, err
	}
	var tokens []string
	for i := range p.Active {
		a := &p.Active[i]
		if a.Param == "" || slices.Contains(tokens, a.Param) {
			if a.Param != "" {
				a.Config = p.Active[slices.IndexFunc(p.Active, func(x Active) bool { return x.Param == a.Param })].Config
			}
			continue
		}
		name, err := add("no-"+a.File, a.Param, KindLeaveOneOut)
		if err != nil {
			return nil, err
		}
		a.Config = name
		tokens = append(tokens, a.Param)
	}
	// Mitigations that share one buffer clear (VERW) go only together:
	// each leave-one-out of them changes nothing, so one more
	// configuration switches them off at once.
	var shared []string
	for _, q := range p.Configurations {
		if q.Kind == KindLeaveOneOut && len(q.Expected) == 0 && slices.ContainsFunc(q.NoEffect, func(s string) bool { return strings.Contains(s, "(VERW)") }) {
			shared = append(shared, q.String())
		}
	}
	if len(shared) > 1 {
		if _, err := add("no-verw", strings.Join(shared, " "), KindLeaveOneOut); err != nil {
			return nil, err
		}
	}
	p.Cumulative = append(p.Cumulative, "on")
	for i := range tokens {
		if i == 0 {
			p.Cumulative = append(p.Cumulative, p.Active[slices.IndexFunc(p.Active, func(x Active) bool { return x.Param == tokens[0] })].Config)
			continue
		}
		name, err := add(fmt.Sprintf("cum-%d", i+1), strings.Join(tokens[:i+1], " "), KindCumulative)
		if err != nil {
			return nil, err
		}
		p.Cumulative = append(p.Cumulative, name)
	}
	if len(tokens) > 0 {
		p.Cumulative = append(p.Cumulative, "off")
	}
	for _, st := range []struct{ name, params string }{{"study-off", studyOff}, {"mitigations-only", "mitigations=off"}, {"rest-only", studyRest}} {
		if _, err := add(st.name, st.params, KindStudy); err != nil {
			return nil, err
		}
	}
	if err := p.addVectors(s, kb, add); err != nil {
		return nil, err
	}
	for i := range p.Configurations {
		c := &p.Configurations[i]
		c.Boot = c.SameAs == "" && !(c.Kind == KindLeaveOneOut && len(c.Expected) == 0 && len(c.Weakened) == 0)
	}
	for _, a := range p.Active {
		if a.Param == "" {
			p.Notes = append(p.Notes, fmt.Sprintf("%s: no single parameter turns it off on this kernel; it goes only with mitigations=off, so its share stays in the interaction", a.File))
		}
	}
	return p, nil
}

// offParam returns the first parameter of the knowledge base's entry for
// file that turns it off alone on this kernel (by advise's prediction),
// written as the kernel takes it ("pti=off", "nospectre_v1"), and a note
// when the parameter is newer than the kernel's version.
func offParam(s *sysinfo.Snapshot, kb *mitigation.Knowledge, file string) (string, string) {
	e, ok := kb.LookupVulnerability(file)
	if !ok {
		return "", ""
	}
	for _, key := range e.Params {
		kp, ok := kb.LookupParam(key)
		if !ok || kp.Kind != "bug" || !kp.Mitigation {
			continue
		}
		tok := ""
		switch {
		case slices.ContainsFunc(kp.Values, func(v mitigation.KBVal) bool { return v.Value == "off" }):
			tok = kp.Key + "=off"
		case len(kp.Values) == 0 && strings.HasPrefix(kp.Key, "no"):
			tok = kp.Key
		default:
			continue
		}
		params, err := mitigation.ParseParams(tok)
		if err != nil || !slices.ContainsFunc(kb.Targets(s.Machine(), params), func(t mitigation.TargetFile) bool { return t.Name == file }) {
			continue
		}
		return tok, tooNew(s, kp)
	}
	return "", ""
}

// tooNew says when a parameter is newer than the kernel, by the knowledge
// base's version rule (through the one comparison it exports: an
// alternative's minimum kernel).
func tooNew(s *sysinfo.Snapshot, kp mitigation.KBParam) string {
	if kp.Since == "" || (mitigation.KBAlternative{MinKernel: kp.Since}).AppliesTo(s.Kernel.Release) {
		return ""
	}
	return fmt.Sprintf("%s arrived in Linux %s; this kernel (%s) takes it only if its distribution backported it", kp.Key, kp.Since, s.Kernel.Release)
}

// expect asks advise what configuration c does to this kernel's files.
func expect(s *sysinfo.Snapshot, kb *mitigation.Knowledge, c bootconfig.Config, kind string) Planned {
	pl := Planned{Config: c, Kind: kind, Expected: []Change{}}
	if len(c.Params) == 0 {
		return pl
	}
	a := advise.For(s, advise.Platform{Kind: advise.PlatformUnknown}, mitigation.Target{Kind: mitigation.KindParams, Raw: c.String(), Params: c.Params}, kb)
	for _, l := range a.GivenUp {
		pl.Expected = append(pl.Expected, Change{File: l.Name, From: l.From, To: l.To, By: l.By})
	}
	for _, l := range a.Weakened {
		pl.Weakened = append(pl.Weakened, Change{File: l.Name, From: l.From, To: l.To, By: l.By})
	}
	for _, l := range a.Kept {
		pl.NoEffect = append(pl.NoEffect, l.Explanation)
	}
	for _, t := range a.Toggles {
		pl.Toggles = append(pl.Toggles, t.Param)
	}
	for _, q := range c.Params {
		if kp, ok := kb.LookupParam(q.Key()); ok {
			if n := tooNew(s, kp); n != "" {
				pl.NoEffect = append(pl.NoEffect, n)
			}
		}
	}
	if len(pl.Expected) == 0 && len(pl.Weakened) == 0 && len(pl.Toggles) < len(c.Params) {
		pl.NoEffect = append(pl.NoEffect, fmt.Sprintf("%s changes no vulnerability file on this kernel", c.String()))
	}
	return pl
}

// addVectors adds the vectors configurations: one per attack vector that
// an active mitigation here depends on alone, then the cumulative sets of
// VectorSets, each spelled for this kernel by the model (DropVectors) and
// left out, with a note, when it would change nothing here.
func (p *Design) addVectors(s *sysinfo.Snapshot, kb *mitigation.Knowledge, add func(name, params, kind string) (string, error)) error {
	m := s.Machine()
	type set struct {
		name string
		drop []string
	}
	var sets []set
	for _, v := range mitigation.Vectors {
		sets = append(sets, set{VectorConfigName(v), []string{v}})
	}
	for _, vs := range VectorSets {
		sets = append(sets, set{vs.Name, vs.Drop})
	}
	running := kb.RunningVectorsOff(m, s.Cmdline.Raw)
	for _, st := range sets {
		if len(running) > 0 && !slices.ContainsFunc(st.drop, func(v string) bool { return !slices.Contains(running, v) }) {
			p.Notes = append(p.Notes, fmt.Sprintf("%s: the running command line already drops %s", st.name, strings.Join(st.drop, ", ")))
			continue
		}
		d, ok, err := kb.DropVectors(m, append(slices.Clone(st.drop), running...))
		if err != nil {
			return err
		}
		for _, n := range d.Inexact {
			if ok {
				p.Notes = append(p.Notes, st.name+": "+n)
			}
		}
		if !ok {
			if m.Arch == "x86" {
				p.Notes = append(p.Notes, fmt.Sprintf("%s: dropping %s changes no mitigation this machine shows", st.name, strings.Join(st.drop, ", ")))
			}
			continue
		}
		if _, err := add(st.name, d.Cmdline(), KindVectors); err != nil {
			return err
		}
		p.Configurations[len(p.Configurations)-1].Drop = d.Drop
	}
	return nil
}
