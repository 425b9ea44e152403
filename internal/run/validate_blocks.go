package run

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
)

// Accelerators are the values of lab.accel: QEMU's accelerator. Under tcg
// every timing is an emulator artefact.
var Accelerators = []string{"kvm", "tcg"}

// SpecControlKind is a per-task speculation control a result's
// spec_controls may name, and the states it may be requested in.
type SpecControlKind struct {
	Control string
	States  []string
}

// SpecControlKinds lists the controls in the order sectax applies them
// (internal/workload applies them; a test keeps the two in step).
var SpecControlKinds = []SpecControlKind{
	{"ssbd", []string{"force", "on", "off"}},
	{"ib", []string{"force", "on", "off"}},
	{"l1d_flush", []string{"on", "off"}},
}

// SpecRoles are the roles of the tasks a spec control is verified in: the
// thread that runs the workload, worker threads, worker processes.
var SpecRoles = []string{"runner-thread", "thread", "worker"}

// SpecSources are where a task's state is read.
var SpecSources = []string{"/proc/PID/task/TID/status", "PR_GET_SPECULATION_CTRL"}

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// token checks a command-line word or short name: present, no space, no
// control character, at most max bytes.
func token(field, s string, max int) error {
	if s == "" {
		return invalid(field, "missing")
	}
	if err := checkText(s, max, false); err != nil {
		return &InvalidError{field, err.Error()}
	}
	if strings.ContainsAny(s, " \u00a0") {
		return invalid(field, "%s holds a space; it is one word", quote(s))
	}
	return nil
}

func (c *Config) validate() error {
	if c == nil {
		return nil
	}
	if err := token("config.name", c.Name, MaxNameBytes); err != nil {
		return err
	}
	if len(c.Params) > MaxParams {
		return invalid("config.params", "%d parameters, more than the limit of %d", len(c.Params), MaxParams)
	}
	for i, p := range c.Params {
		f := fmt.Sprintf("config.params[%d]", i)
		if err := token(f, p, MaxTextBytes); err != nil {
			return err
		}
		if slices.Index(c.Params, p) != i {
			return invalid(f, "%s appears twice", quote(p))
		}
	}
	v := c.Verification
	if v == nil {
		return invalid("config.verification", "missing: a run measured under a configuration carries what was verified about its boot")
	}
	if !v.OK {
		return invalid("config.verification.ok", "false: a boot that does not verify is never measured, so no run can carry one")
	}
	for field, s := range map[string]string{"config.verification.boot_id": v.BootID, "config.verification.cmdline": v.Cmdline} {
		if err := checkText(s, MaxTextBytes, false); err != nil {
			return &InvalidError{field, err.Error()}
		}
	}
	for field, list := range map[string][]string{"config.verification.missing": v.Missing, "config.verification.foreign": v.Foreign,
		"config.verification.still_mitigated": v.StillMitigated, "config.verification.reasons": v.Reasons} {
		if len(list) > 0 {
			return invalid(field, "%d entries in a verified boot: each is a reason the boot does not verify", len(list))
		}
	}
	if len(v.ExpectedOff) > MaxLines {
		return invalid("config.verification.expected_off", "%d files, more than the limit of %d", len(v.ExpectedOff), MaxLines)
	}
	for i, f := range v.ExpectedOff {
		if err := token(fmt.Sprintf("config.verification.expected_off[%d]", i), f, MaxNameBytes); err != nil {
			return err
		}
	}
	// As config.Verify checks it: the last occurrence of the name (dashes
	// and underscores alike) has the parameter's value.
	running := mitigation.ParseCmdline(v.Cmdline).Params
	for i, p := range c.Params {
		want := mitigation.ParseCmdline(p).Params
		if len(want) != 1 {
			return invalid(fmt.Sprintf("config.params[%d]", i), "%s is not one kernel parameter", quote(p))
		}
		if q, ok := mitigation.Lookup(running, want[0].Name); !ok || q.Value != want[0].Value || q.HasValue != want[0].HasValue {
			return invalid(fmt.Sprintf("config.params[%d]", i), "%s is not on the verified command line %s", quote(p), quote(v.Cmdline))
		}
	}
	return nil
}

func (l *Lab) validate() error {
	if l == nil {
		return nil
	}
	if !slices.Contains(Accelerators, l.Accel) {
		return invalid("lab.accel", "%s is not kvm or tcg", quote(l.Accel))
	}
	if err := token("lab.kernel", l.Kernel, MaxNameBytes); err != nil {
		return err
	}
	for _, f := range []struct {
		field, s string
		need     bool
	}{
		{"lab.qemu_version", l.QEMUVersion, true}, {"lab.cpu_model", l.CPUModel, true}, {"lab.host_kernel", l.HostKernel, false},
		{"lab.host_cpu", l.HostCPU, false}, {"lab.kernel_image", l.KernelImage, true}, {"lab.lab_params", l.LabParams, false},
	} {
		if f.need && f.s == "" {
			return invalid(f.field, "missing")
		}
		if err := checkText(f.s, MaxTextBytes, false); err != nil {
			return &InvalidError{f.field, err.Error()}
		}
	}
	switch {
	case !sha256RE.MatchString(l.KernelSHA256):
		return invalid("lab.kernel_sha256", "%s is not 64 lower-case hexadecimal digits", quote(l.KernelSHA256))
	case l.MemoryMiB < 1:
		return invalid("lab.memory_mib", "%d: must be at least 1", l.MemoryMiB)
	case l.VCPUs < 1:
		return invalid("lab.vcpus", "%d: must be at least 1", l.VCPUs)
	case l.Boots < 1:
		return invalid("lab.boots", "%d: must be at least 1", l.Boots)
	case l.Boot < 1 || l.Boot > l.Boots:
		return invalid("lab.boot", "%d: must be from 1 to boots (%d)", l.Boot, l.Boots)
	case l.QEMUPeakRSSKiB < 0:
		return invalid("lab.qemu_peak_rss_kib", "%d is negative", l.QEMUPeakRSSKiB)
	}
	for field, x := range map[string]float64{"lab.boot_to_init_s": l.BootToInitS, "lab.guest_uptime_at_init_s": l.GuestUptimeAtInitS, "lab.vm_wall_s": l.VMWallS} {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return invalid(field, "%v: must be a finite number of seconds, not negative", x)
		}
	}
	return nil
}

func (c *Campaign) validate() error {
	if c == nil {
		return nil
	}
	if err := CheckID(c.ID); err != nil {
		return &InvalidError{"campaign.id", err.Error()}
	}
	switch {
	case c.Step < 1:
		return invalid("campaign.step", "%d: must be at least 1", c.Step)
	case c.Boot < 1:
		return invalid("campaign.boot", "%d: must be at least 1", c.Boot)
	case c.Boot > c.Step:
		return invalid("campaign.boot", "%d is later than step %d: the n-th boot of a configuration is at step n or later", c.Boot, c.Step)
	}
	return nil
}

// validateSpec checks a result's spec_controls (p is the result's path).
func validateSpec(p string, scs []SpecControl) error {
	seen := map[string]bool{}
	for i, c := range scs {
		cp := fmt.Sprintf("%s.spec_controls[%d]", p, i)
		j := slices.IndexFunc(SpecControlKinds, func(k SpecControlKind) bool { return k.Control == c.Control })
		switch {
		case j < 0:
			return invalid(cp+".control", "%s is not ssbd, ib or l1d_flush", quote(c.Control))
		case seen[c.Control]:
			return invalid(cp+".control", "%s appears twice", quote(c.Control))
		case !slices.Contains(SpecControlKinds[j].States, c.Requested):
			return invalid(cp+".requested", "%s is not a state of %s (%s)", quote(c.Requested), c.Control, strings.Join(SpecControlKinds[j].States, ", "))
		}
		seen[c.Control] = true
		if err := checkText(c.Kernel, MaxNameBytes, false); err != nil {
			return &InvalidError{cp + ".kernel", err.Error()}
		}
		if err := checkText(c.Expected, MaxNameBytes, false); err != nil || c.Expected == "" {
			if err == nil {
				err = fmt.Errorf("missing")
			}
			return &InvalidError{cp + ".expected", err.Error()}
		}
		if len(c.Verified) == 0 {
			return invalid(cp+".verified", "empty: every measured repetition verifies at least the thread that runs the workload")
		}
		if len(c.Verified) > MaxLines {
			return invalid(cp+".verified", "%d groups, more than the limit of %d", len(c.Verified), MaxLines)
		}
		for k, v := range c.Verified {
			vp := fmt.Sprintf("%s.verified[%d]", cp, k)
			switch {
			case !slices.Contains(SpecRoles, v.Role):
				return invalid(vp+".role", "%s is not runner-thread, thread or worker", quote(v.Role))
			case !slices.Contains(SpecSources, v.Source):
				return invalid(vp+".source", "%s is not /proc/PID/task/TID/status or PR_GET_SPECULATION_CTRL", quote(v.Source))
			case v.State != c.Expected:
				return invalid(vp+".state", "%s is not the expected %s: a repetition whose tasks do not show the control fails and is not measured", quote(v.State), quote(c.Expected))
			case v.Processes < 1:
				return invalid(vp+".processes", "%d: must be at least 1", v.Processes)
			case v.Tasks < v.Processes:
				return invalid(vp+".tasks", "%d is fewer than the %d processes", v.Tasks, v.Processes)
			}
		}
	}
	return nil
}
