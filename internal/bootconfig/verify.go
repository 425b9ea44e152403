package bootconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// Verify checks the booted kernel s against configuration c of plan: the
// boot is new (its boot id is not among seen), every parameter of c is on
// the command line with its value, no parameter that only another
// configuration of the plan sets is there, and every vulnerability file c
// is expected to turn off no longer says "Mitigation:". The result is the
// run document's verification block; OK is false when anything differs,
// and Reasons say what, one line each.
func Verify(s *sysinfo.Snapshot, c Config, plan []Config, seen []string, kb *mitigation.Knowledge) run.Verification {
	v := run.Verification{BootID: s.BootID, Cmdline: strings.TrimSpace(s.Cmdline.Raw)}
	if s.BootID != "" && slices.Contains(seen, s.BootID) {
		v.Reasons = append(v.Reasons, fmt.Sprintf("boot id %s was already measured: the machine did not boot again", s.BootID))
	}
	running := mitigation.ParseCmdline(s.Cmdline.Raw).Params
	for _, p := range c.Params {
		q, ok := mitigation.Lookup(running, p.Name)
		switch {
		case !ok:
			v.Missing = append(v.Missing, p.Raw)
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s is not on the command line", p.Raw))
		case q.Value != p.Value || q.HasValue != p.HasValue:
			v.Missing = append(v.Missing, p.Raw)
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s is not on the command line (it has %s)", p.Raw, q.Raw))
		}
	}
	for _, o := range plan {
		if o.Name == c.Name {
			continue
		}
		for _, p := range o.Params {
			if slices.ContainsFunc(c.Params, func(x mitigation.Param) bool { return x.Key() == p.Key() }) {
				continue // c sets this parameter itself: checked above
			}
			if q, ok := mitigation.Lookup(running, p.Name); ok && q.Value == p.Value && q.HasValue == p.HasValue && !slices.Contains(v.Foreign, p.Raw) {
				v.Foreign = append(v.Foreign, p.Raw)
				v.Reasons = append(v.Reasons, fmt.Sprintf("%s (of configuration %s) is on the command line", p.Raw, o.Name))
			}
		}
	}
	if len(c.Params) > 0 && s.Vulnerabilities != nil {
		// What the configuration should turn off, judged on this kernel
		// as if it had booted with the defaults: files a parameter turns
		// off can be Mitigated only without it.
		v.ExpectedOff = expectedOff(s, c, kb)
		byName := map[string]mitigation.Vulnerability{}
		for _, f := range s.Vulnerabilities {
			byName[f.Name] = f
		}
		for _, name := range v.ExpectedOff {
			if f := byName[name]; f.State == mitigation.Mitigated {
				v.StillMitigated = append(v.StillMitigated, name)
				v.Reasons = append(v.Reasons, fmt.Sprintf("%s still says %q although %s should turn it off", name, strings.TrimSpace(f.Raw), c.String()))
			}
		}
	}
	v.OK = len(v.Reasons) == 0
	return v
}

// VerifyReported is Verify of a snapshot another machine reported (a lab
// guest's run document): nothing it concluded is kept. The state of every
// vulnerability file is read again from its raw text (the guest's
// parsed state may be forged), the command line is parsed again from its
// raw text, and the result is Verify's on those: the host's verdict, never
// the guest's.
func VerifyReported(s *sysinfo.Snapshot, c Config, plan []Config, seen []string, kb *mitigation.Knowledge) run.Verification {
	if s == nil {
		return run.Verification{Reasons: []string{"the boot reported no environment to verify"}}
	}
	as := *s
	as.Vulnerabilities = make([]mitigation.Vulnerability, 0, len(s.Vulnerabilities))
	for _, f := range s.Vulnerabilities {
		as.Vulnerabilities = append(as.Vulnerabilities, mitigation.ParseVulnerability(f.Name, f.Raw))
	}
	v := Verify(&as, c, plan, seen, kb)
	if len(s.Vulnerabilities) == 0 && len(c.Params) > 0 {
		v.Reasons = append(v.Reasons, "the boot reported no vulnerability files: whether the configuration took effect cannot be checked")
		v.OK = false
	}
	return v
}

// expectedOff names the files c is expected to turn off on s's kernel:
// the model's answer for the machine as booted, the one advise.Verify
// asks too (mitigation.Knowledge.ExpectedOffAtBoot).
func expectedOff(s *sysinfo.Snapshot, c Config, kb *mitigation.Knowledge) []string {
	return kb.ExpectedOffAtBoot(s.Machine(), c.Params)
}

// Record is the run document's config block for a run measured under c.
func Record(c Config, v run.Verification) *run.Config {
	return &run.Config{Name: c.Name, Params: c.Tokens(), Verification: &v}
}
