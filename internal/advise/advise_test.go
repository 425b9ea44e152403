package advise

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

func load(t *testing.T, name string) (*sysinfo.Snapshot, Platform, *mitigation.Knowledge) {
	t.Helper()
	dir := testutil.AdviseRoot(t, name)
	s, err := sysinfo.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	return s, Probe(dir, s), kb
}

func mustTarget(t *testing.T, s string) mitigation.Target {
	t.Helper()
	tg, err := mitigation.ParseTarget(s)
	if err != nil {
		t.Fatalf("mitigation.ParseTarget(%q): %v", s, err)
	}
	return tg
}

func TestParseTarget(t *testing.T) {
	for _, tt := range []struct {
		in, kind, str string
	}{
		{"off", mitigation.KindOff, "off"},
		{" auto ", mitigation.KindAuto, "auto"},
		{"on", mitigation.KindAuto, "auto"},
		{"mitigations=off audit=0", mitigation.KindParams, "mitigations=off audit=0"},
		{"nopti\tnosmt", mitigation.KindParams, "nopti nosmt"},
		{"spectre_bhi=vmexit spectre_bhi=vmexit", mitigation.KindParams, "spectre_bhi=vmexit"},
	} {
		tg := mustTarget(t, tt.in)
		if tg.Kind != tt.kind || tg.String() != tt.str {
			t.Errorf("mitigation.ParseTarget(%q) = %s %q, want %s %q", tt.in, tg.Kind, tg.String(), tt.kind, tt.str)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"", "empty target"},
		{"   ", "empty target"},
		{`foo="a b"`, "contains a double quote"},
		{`mitigations="off`, "unbalanced double quote"},
		{`"nopti"`, "contains a double quote"},
		{"mitigations=off -- init", `contains "--"`},
		{"=off", "no parameter name"},
		{"mitigations=öff", "plain ASCII"},
		{"mitigations=off\x01", "plain ASCII"},
		{"spectre_v2=off spectre_v2=auto", "given twice"},
	} {
		_, err := mitigation.ParseTarget(tt.in)
		if err == nil || !errors.Is(err, mitigation.ErrTarget) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("mitigation.ParseTarget(%q) = %v, want an mitigation.ErrTarget containing %q", tt.in, err, tt.want)
		}
	}
}

func TestProbe(t *testing.T) {
	for _, tt := range []struct {
		root       string
		kind       PlatformKind
		configured string
		line       int
	}{
		{"sys:wsl2-intel-on", PlatformWSL, "", 0},
		{"sys:wsl2-intel-off", PlatformWSL, "quiet loglevel=0 audit=0 mitigations=off vsyscall=none", 4},
		{"debian-grub", PlatformGRUBDebian, "quiet splash", 7},
		{"fedora-grubby", PlatformGrubby, "root=UUID=2b4c6d8e-0f1a-4b3c-8d5e-7f9a1b3c5d7e ro rootflags=subvol=root rhgb quiet mitigations=auto,nosmt isolcpus=14,15 nohz_full=14,15", 0},
		{"systemd-boot", PlatformSystemdBoot, "root=UUID=5c1d7e0a-9b2f-4f3e-8a6d-1e2f3a4b5c6d rw quiet nopti", 0},
		{"kernelstub", PlatformKernelstub, "quiet loglevel=0 systemd.show_status=false splash mitigations=auto", 0},
		{"sys:firecracker-dev", PlatformUnknown, "", 0},
		{"sys:container-novulns", PlatformUnknown, "", 0},
	} {
		_, p, _ := load(t, tt.root)
		if p.Kind != tt.kind || p.Configured != tt.configured || p.ConfigLine != tt.line {
			t.Errorf("%s: kind %s, configured %q line %d; want %s %q line %d", tt.root, p.Kind, p.Configured, p.ConfigLine, tt.kind, tt.configured, tt.line)
		}
	}
	_, p, _ := load(t, "debian-grub")
	if !slices.Equal(p.DropIns, []string{"/etc/default/grub.d/50-cloudimg-settings.cfg"}) {
		t.Errorf("drop-ins %v", p.DropIns)
	}
	_, p, _ = load(t, "systemd-boot")
	if !slices.Equal(p.Entries, []string{"/boot/loader/entries/arch.conf"}) || p.ConfigNote == "" {
		t.Errorf("entries %v, note %q", p.Entries, p.ConfigNote)
	}
}

func TestGRUBAssignment(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"`, "quiet splash"},
		{`GRUB_CMDLINE_LINUX_DEFAULT='quiet'`, "quiet"},
		{`export GRUB_CMDLINE_LINUX_DEFAULT=quiet # comment`, "quiet"},
		{`  GRUB_CMDLINE_LINUX_DEFAULT=""`, ""},
	} {
		got, ok := grubAssignment(tt.line, "GRUB_CMDLINE_LINUX_DEFAULT")
		if !ok || got != tt.want {
			t.Errorf("grubAssignment(%q) = %q, %v; want %q", tt.line, got, ok, tt.want)
		}
	}
	if _, ok := grubAssignment(`GRUB_CMDLINE_LINUX="x"`, "GRUB_CMDLINE_LINUX_DEFAULT"); ok {
		t.Error("GRUB_CMDLINE_LINUX matched GRUB_CMDLINE_LINUX_DEFAULT")
	}
}

func lossNames(ls []Loss) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

func TestPlanWSLOff(t *testing.T) {
	s, p, kb := load(t, "sys:wsl2-intel-on")
	a := For(s, p, mustTarget(t, "off"), kb)
	// Exactly the files the study's off tree shows going from Mitigation to Vulnerable.
	want := []string{"indirect_target_selection", "mmio_stale_data", "retbleed", "spec_store_bypass", "spectre_v1", "spectre_v2"}
	if got := lossNames(a.GivenUp); !slices.Equal(got, want) {
		t.Errorf("given up %v, want %v", got, want)
	}
	off, _, _ := load(t, "sys:wsl2-intel-off")
	for _, l := range a.GivenUp {
		for _, v := range off.Vulnerabilities {
			if v.Name == l.Name && v.State != mitigation.Vulnerable {
				t.Errorf("%s predicted vulnerable, the off tree says %q", l.Name, v.Raw)
			}
		}
		if !strings.Contains(l.Explanation, "protection given up") || l.GuestNote == "" {
			t.Errorf("%s: explanation %q, guest note %q", l.Name, l.Explanation, l.GuestNote)
		}
	}
	if got := lossNames(a.Kept); !slices.Equal(got, []string{"itlb_multihit"}) {
		t.Errorf("kept %v", got)
	}
	if a.GuestCaveat == "" || len(a.Alternatives) == 0 || a.PredictedMode != mitigation.ModeOff {
		t.Errorf("caveat %q, %d alternatives, mode %s", a.GuestCaveat, len(a.Alternatives), a.PredictedMode)
	}
	if !slices.Equal(a.Changes, []Change{{Op: "add", New: "mitigations=off"}}) || a.ConfiguredAfter != "mitigations=off" {
		t.Errorf("changes %v, after %q", a.Changes, a.ConfiguredAfter)
	}
	var cmds []string
	for _, st := range a.Steps {
		cmds = append(cmds, st.Command)
	}
	for _, c := range []string{"sectax wslconfig set mitigations=off", "wsl --shutdown", "sectax verify --expect off"} {
		if !slices.Contains(cmds, c) {
			t.Errorf("steps lack %q: %q", c, cmds)
		}
	}
}

func TestPlanPrecedenceByKernel(t *testing.T) {
	// On 6.17 an explicit per-bug value overrides mitigations=off
	// (spec_rstack_overflow=safe-ret: srso_select_mitigation leaves a
	// non-AUTO choice alone), but spec_store_bypass_disable= does not yet
	// (6.17's ssb_parse_cmdline returns NONE under cpu_mitigations_off());
	// on 6.8 mitigations=off wins over both.
	tg := mustTarget(t, "mitigations=off spec_store_bypass_disable=prctl spec_rstack_overflow=safe-ret")
	s, p, kb := load(t, "fedora-grubby") // 6.17
	a := For(s, p, tg, kb)
	if !slices.Contains(lossNames(a.GivenUp), "spec_store_bypass") || !slices.Equal(lossNames(a.Kept), []string{"spec_rstack_overflow"}) {
		t.Errorf("6.17: given up %v, kept %v", lossNames(a.GivenUp), lossNames(a.Kept))
	}
	if !hasRule(a.Precedence, "per-bug-overrides-global") || hasRule(a.Precedence, "global-off-wins") {
		t.Errorf("6.17 rules %v", a.Precedence)
	}
	s, p, _ = load(t, "debian-grub") // 6.8
	a = For(s, p, tg, kb)
	if !slices.Contains(lossNames(a.GivenUp), "spec_store_bypass") || slices.Contains(lossNames(a.Kept), "spec_store_bypass") {
		t.Errorf("6.8: given up %v, kept %v", lossNames(a.GivenUp), lossNames(a.Kept))
	}
	if hasRule(a.Precedence, "per-bug-overrides-global") || !hasRule(a.Precedence, "global-off-wins") {
		t.Errorf("6.8 rules %v", a.Precedence)
	}
}

func hasRule(rs []mitigation.KBRule, id string) bool {
	return slices.ContainsFunc(rs, func(r mitigation.KBRule) bool { return r.ID == id })
}

func TestPlanChanges(t *testing.T) {
	s, p, kb := load(t, "fedora-grubby")
	a := For(s, p, mustTarget(t, "off"), kb)
	if !slices.Equal(a.Changes, []Change{{Op: "replace", Old: "mitigations=auto,nosmt", New: "mitigations=off"}}) {
		t.Errorf("changes %v", a.Changes)
	}
	s, p, _ = load(t, "systemd-boot")
	a = For(s, p, mustTarget(t, "auto"), kb)
	if !slices.Equal(a.Changes, []Change{{Op: "remove", Old: "nopti"}}) || strings.Contains(a.Predicted, "nopti") {
		t.Errorf("auto: changes %v, predicted %q", a.Changes, a.Predicted)
	}
	if got := lossNames(a.Regained); !slices.Equal(got, []string{"meltdown"}) {
		t.Errorf("regained %v", got)
	}
	s, p, _ = load(t, "kernelstub")
	a = For(s, p, mustTarget(t, "off"), kb)
	var cmds []string
	for _, st := range a.Steps {
		cmds = append(cmds, st.Command)
	}
	if !slices.Contains(cmds, `sudo kernelstub -d "mitigations=auto"`) || !slices.Contains(cmds, `sudo kernelstub -a "mitigations=off"`) {
		t.Errorf("kernelstub steps %q", cmds)
	}
	// Sub-field-only parameters weaken without giving the file up.
	s, p, _ = load(t, "sys:wsl2-intel-on")
	a = For(s, p, mustTarget(t, "spectre_bhi=off"), kb)
	if len(a.GivenUp) != 0 || !slices.Equal(lossNames(a.Weakened), []string{"spectre_v2"}) {
		t.Errorf("spectre_bhi=off: given up %v, weakened %v", lossNames(a.GivenUp), lossNames(a.Weakened))
	}
	a = For(s, p, mustTarget(t, "spectre_bhi=vmexit"), kb)
	if len(a.GivenUp) != 0 || !slices.Equal(lossNames(a.Weakened), []string{"spectre_v2"}) {
		t.Errorf("spectre_bhi=vmexit: given up %v, weakened %v", lossNames(a.GivenUp), lossNames(a.Weakened))
	}
	// Firecracker: the init arguments after "--" stay on the line, and
	// mitigations=off takes the place of the mitigations=auto it replaces.
	s, p, _ = load(t, "sys:firecracker-dev")
	a = For(s, p, mustTarget(t, "off"), kb)
	if !strings.HasSuffix(a.Predicted, "--tcp-readiness-only --auth-required") || !strings.HasPrefix(a.Predicted, "mitigations=off console=ttyS0 ") {
		t.Errorf("predicted %q", a.Predicted)
	}
}

func TestWindowsPath(t *testing.T) {
	for in, want := range map[string]string{
		"/mnt/c/Users/dev/.wslconfig": `C:\Users\dev\.wslconfig`,
		"":                            `%UserProfile%\.wslconfig`,
		"/home/x/.wslconfig":          "/home/x/.wslconfig",
	} {
		if got := windowsPath(in); got != want {
			t.Errorf("windowsPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVerify(t *testing.T) {
	for _, tt := range []struct {
		root, expect string
		holds        bool
		reason       string
	}{
		{"sys:wsl2-intel-on", "auto", true, ""},
		{"sys:wsl2-intel-on", "off", false, "lacks mitigations=off (absent): the .wslconfig does not ask for off"},
		{"sys:wsl2-intel-off", "off", true, ""},
		{"sys:wsl2-intel-off", "mitigations=off audit=0", true, ""},
		{"sys:wsl2-intel-off", "auto", false, "has mitigations=off, which auto rules out: the .wslconfig does not ask for auto"},
		{"sys:firecracker-dev", "mitigations=auto,no_guest_host,no_guest_guest", true, ""},
		{"sys:firecracker-dev", "off", false, "cannot read where"},
		{"wsl2-asked-off", "off", false, "has not restarted"},
		{"wsl2-off-overridden", "off", false, "per-bug parameter overrides"},
		{"debian-grub-pending", "off", false, "has not rebooted"},
		{"sys:container-novulns", "auto", true, ""},
		{"old-kernel-ignored", "off", false, "older than some of them"},
	} {
		s, p, kb := load(t, tt.root)
		v := Verify(s, p, mustTarget(t, tt.expect), kb)
		if v.Holds != tt.holds {
			t.Errorf("%s --expect %s: holds %v, want %v (%v)", tt.root, tt.expect, v.Holds, tt.holds, v.Checks)
		}
		if tt.reason != "" && !strings.Contains(strings.Join(v.Reasons, " "), tt.reason) {
			t.Errorf("%s --expect %s: reasons %q lack %q", tt.root, tt.expect, v.Reasons, tt.reason)
		}
		if !v.Holds && len(v.Fix) == 0 {
			t.Errorf("%s --expect %s: no fix given", tt.root, tt.expect)
		}
	}
	// An expected value the kernel does not accept is said beside the
	// cmdline check, however the expectation ends.
	s, p, kb := load(t, "sys:wsl2-intel-on")
	v := Verify(s, p, mustTarget(t, "retbleed=bogus"), kb)
	if i := slices.IndexFunc(v.Checks, func(c Check) bool { return c.Name == "value" }); i < 0 || !strings.Contains(v.Checks[i].Detail, "retbleed=bogus is not a value of retbleed=") {
		t.Errorf("verify --expect retbleed=bogus: checks %+v, want one naming the value the kernel does not accept", v.Checks)
	}
	s, p, kb = load(t, "wsl2-off-overridden")
	v = Verify(s, p, mustTarget(t, "off"), kb)
	if len(v.StillMitigated) != 1 || v.StillMitigated[0].Name != "spectre_v2" || !strings.Contains(v.StillMitigated[0].Why, "spectre_v2=eibrs") {
		t.Errorf("still mitigated %+v", v.StillMitigated)
	}
}

// FuzzParseTarget: any string either is refused with mitigation.ErrTarget or gives
// parameters that survive being written out and parsed again unchanged,
// with no blank or quote inside a parameter.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"off", "auto", "mitigations=off audit=0", `foo="a b"`, `"`, "nopti -- x", "=x", "a=b a=c", "spectre_v2=retpoline,generic\tnosmt", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := mitigation.ParseTarget(s)
		if err != nil {
			if !errors.Is(err, mitigation.ErrTarget) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("mitigation.ParseTarget(%q): error %q is not a one-line mitigation.ErrTarget", s, err)
			}
			return
		}
		if tg.Kind != mitigation.KindParams {
			return
		}
		for _, p := range tg.Params {
			if strings.ContainsAny(p.Raw, " \t\n\v\f\r\"") || p.Name == "" {
				t.Fatalf("mitigation.ParseTarget(%q) accepted %q", s, p.Raw)
			}
		}
		again, err := mitigation.ParseTarget(tg.String())
		if err != nil || !slices.Equal(again.Params, tg.Params) {
			t.Fatalf("mitigation.ParseTarget(%q) → %q → %v, %v", s, tg.String(), again.Params, err)
		}
	})
}

// TestGRUBAllEntries: GRUB_CMDLINE_LINUX is read and a mitigation
// parameter in it is warned about, since the edit goes to the _DEFAULT line.
func TestGRUBAllEntries(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "etc", "default"), 0o755); err != nil {
		t.Fatal(err)
	}
	grub := "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"nopti audit=0\"\n"
	if err := os.WriteFile(filepath.Join(dir, "etc", "default", "grub"), []byte(grub), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Probe(dir, nil)
	if p.Kind != PlatformGRUB || p.Configured != "quiet" || p.AllEntries != "nopti audit=0" || p.ConfigLine != 1 {
		t.Fatalf("probe %+v", p)
	}
	s, _, kb := load(t, "debian-grub")
	a := For(s, p, mustTarget(t, "auto"), kb)
	var hit []string
	for _, w := range a.Warnings {
		if strings.Contains(w, "GRUB_CMDLINE_LINUX in /etc/default/grub also sets") {
			hit = append(hit, w)
		}
	}
	if len(hit) != 1 || !strings.Contains(hit[0], "sets nopti") {
		t.Errorf("warnings %q", a.Warnings)
	}
}

// FuzzGRUBLine: the /etc/default/grub line reader never panics, and a value
// it returns is a substring of the line with no newline.
func FuzzGRUBLine(f *testing.F) {
	for _, s := range []string{`GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"`, `GRUB_CMDLINE_LINUX_DEFAULT='a'`, `GRUB_CMDLINE_LINUX_DEFAULT="`, `export GRUB_CMDLINE_LINUX_DEFAULT=x #c`, `GRUB_CMDLINE_LINUX_DEFAULT=`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		v, ok := grubAssignment(line, "GRUB_CMDLINE_LINUX_DEFAULT")
		if !ok {
			return
		}
		if !strings.Contains(line, v) || strings.Contains(v, "\n") && !strings.Contains(line, "\n") {
			t.Fatalf("grubAssignment(%q) = %q", line, v)
		}
	})
}

func TestVersionBelow(t *testing.T) {
	for _, tt := range []struct {
		release, min string
		want         bool
	}{
		{"4.15.0-20-generic", "5.2", true},
		{"5.2.0", "5.2", false},
		{"6.18.40.1-microsoft-standard-WSL2", "6.17", false},
		{"6.8.0-85-generic", "6.17", true},
		{"garbage", "5.2", false},
		{"6.8", "", false},
	} {
		if got := mitigation.KernelBelow(tt.release, tt.min); got != tt.want {
			t.Errorf("KernelBelow(%q, %q) = %v, want %v", tt.release, tt.min, got, tt.want)
		}
	}
}

// TestSharedVERW: mds=off alone keeps MDS mitigated while mmio_stale_data
// still needs the same buffer clear; turning both off gives both up.
func TestSharedVERW(t *testing.T) {
	s, p, kb := load(t, "debian-grub")
	a := For(s, p, mustTarget(t, "mds=off"), kb)
	if len(a.GivenUp) != 0 || !slices.Contains(lossNames(a.Kept), "mds") {
		t.Errorf("mds=off: given up %v, kept %v", lossNames(a.GivenUp), lossNames(a.Kept))
	}
	a = For(s, p, mustTarget(t, "mds=off mmio_stale_data=off"), kb)
	if got := lossNames(a.GivenUp); !slices.Equal(got, []string{"mds", "mmio_stale_data"}) {
		t.Errorf("mds=off mmio_stale_data=off: given up %v, kept %v", got, lossNames(a.Kept))
	}
}

// TestWSLConfigProblems: a .wslconfig WSL cannot read, or one with a
// shadowed kernelCommandLine, is reported, not trusted.
func TestWSLConfigProblems(t *testing.T) {
	kb, _ := mitigation.KnowledgeBase()
	dir := t.TempDir()
	testutil.CopyTree(t, testutil.SysinfoRoot("wsl2-intel-on"), dir)
	cfg := filepath.Join(dir, "mnt", "c", "Users", "dev", ".wslconfig")
	// UTF-16BE with BOM: WSL does not read it.
	if err := os.WriteFile(cfg, []byte("\xfe\xff\x00[\x00w"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := sysinfo.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := Probe(dir, s)
	if p.Known || p.ConfigError == "" {
		t.Fatalf("probe %+v", p)
	}
	v := Verify(s, p, mustTarget(t, "off"), kb)
	if v.Holds || !strings.Contains(strings.Join(v.Reasons, " "), "cannot be read") {
		t.Errorf("reasons %q", v.Reasons)
	}
	a := For(s, p, mustTarget(t, "off"), kb)
	if a.ConfiguredAfter != "mitigations=off" || !strings.Contains(strings.Join(a.Warnings, " "), "cannot read the .wslconfig") {
		t.Errorf("after %q, warnings %q", a.ConfiguredAfter, a.Warnings)
	}

	if err := os.WriteFile(cfg, []byte("[wsl2]\nkernelCommandLine=audit=0\nkernelCommandLine=mitigations=off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p = Probe(dir, s)
	if p.Configured != "audit=0" || len(p.ConfigWarnings) == 0 {
		t.Fatalf("duplicate: configured %q, warnings %q", p.Configured, p.ConfigWarnings)
	}
	// The second line is ignored by WSL: verify must not count it as asked.
	v = Verify(s, p, mustTarget(t, "off"), kb)
	if !strings.Contains(strings.Join(v.Reasons, " "), "the .wslconfig does not ask for off") {
		t.Errorf("duplicate: reasons %q", v.Reasons)
	}
	if a := For(s, p, mustTarget(t, "off"), kb); !strings.Contains(strings.Join(a.Warnings, "\n"), "line 3") {
		t.Errorf("duplicate: warnings %q", a.Warnings)
	}
}

// TestGRUBAllEntriesGlobalOff: with mitigations=off in GRUB_CMDLINE_LINUX
// (read first) mitigations=auto added to GRUB_CMDLINE_LINUX_DEFAULT regains
// nothing on a 6.17+ kernel (kernel/cpu.c mitigations_parse_cmdline only
// ever clears vectors) and regains what off took before 6.17 (the last
// value wins): the predicted line keeps GRUB_CMDLINE_LINUX's words first.
func TestGRUBAllEntriesGlobalOff(t *testing.T) {
	for _, c := range []struct {
		release  string
		regained bool
	}{{"6.18.3", false}, {"6.12.48", true}} {
		s, p, kb := load(t, "debian-grub")
		p.AllEntries = "mitigations=off"
		s.Kernel.Release = c.release
		s.Cmdline.Raw = "BOOT_IMAGE=/boot/vmlinuz root=UUID=x ro mitigations=off " + p.Configured
		// The machine as it boots with mitigations=off: every file the
		// default mitigates reads Vulnerable.
		for i, v := range s.Vulnerabilities {
			if v.State == mitigation.Mitigated && !kb.AlwaysOn(s.CPU.Arch, v.Name, v.Raw) {
				s.Vulnerabilities[i] = mitigation.ParseVulnerability(v.Name, "Vulnerable")
			}
		}
		a := For(s, p, mustTarget(t, "mitigations=auto"), kb)
		if !strings.HasPrefix(strings.TrimPrefix(a.Predicted, "BOOT_IMAGE=/boot/vmlinuz root=UUID=x ro "), "mitigations=off") {
			t.Errorf("%s: predicted line %q lost GRUB_CMDLINE_LINUX's mitigations=off", c.release, a.Predicted)
		}
		if got := len(a.Regained) > 0; got != c.regained {
			t.Errorf("%s: regained %v, want regained=%v (predicted %q)", c.release, lossNames(a.Regained), c.regained, a.Predicted)
		}
	}
}

// TestAdviseChanged: a file not mitigated now that the target changes
// (vmscape=force on a CPU the kernel calls not affected) is listed with
// the model's predicted text, as PredictFiles gives it.
func TestAdviseChanged(t *testing.T) {
	s, p, kb := load(t, "debian-grub")
	s.Kernel.Release = "7.2.13"
	found := false
	for i, v := range s.Vulnerabilities {
		if v.Name == "vmscape" {
			s.Vulnerabilities[i] = mitigation.ParseVulnerability("vmscape", "Not affected")
			found = true
		}
	}
	if !found {
		s.Vulnerabilities = append(s.Vulnerabilities, mitigation.ParseVulnerability("vmscape", "Not affected"))
	}
	a := For(s, p, mustTarget(t, "vmscape=force"), kb)
	fs, _ := kb.PredictFiles(s.Machine(), mitigation.ParseCmdline(a.Predicted).Params)
	var want string
	for _, f := range fs {
		if f.Name == "vmscape" {
			want = f.To
		}
	}
	if len(a.Changed) != 1 || a.Changed[0].Name != "vmscape" || want == "" || a.Changed[0].To != want {
		t.Errorf("changed %+v, want vmscape → %q", a.Changed, want)
	}
}
