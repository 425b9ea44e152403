package bootconfig

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, name, params, err string
	}{
		{in: "on", name: "on", params: ""},
		{in: "off", name: "off", params: "mitigations=off"},
		{in: " off=mitigations=off ", name: "off", params: "mitigations=off"},
		{in: "nopti=pti=off", name: "nopti", params: "pti=off"},
		{in: "study-off=quiet loglevel=0 audit=0 vsyscall=none mitigations=off", name: "study-off", params: "quiet loglevel=0 audit=0 vsyscall=none mitigations=off"},
		{in: "x=off", name: "x", params: "mitigations=off"},
		{in: "", err: "empty"},
		{in: "nothing", err: "NAME=PARAMS"},
		{in: "x=", err: "adds no parameter"},
		{in: "on=nopti", err: "adds nothing"},
		{in: "x=auto", err: "adds no parameter"},
		{in: "Bad Name=nopti", err: "name"},
		{in: `q=spectre_v2="off"`, err: "double quote"},
		{in: "d=pti=on pti=off", err: "twice"},
		// advise answers a value the kernel ignores; a configuration that
		// boots it would measure the default under another name.
		{in: "b=mitigations=bogus,off", err: "mitigations=bogus,off is not a value of mitigations= the kernel accepts, so the configuration would not measure what it names"},
		{in: "r=retbleed=bogus", err: "not a value of retbleed="},
		{in: "t=mitigations=of", err: "did you mean mitigations=off?"},
	} {
		c, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if c.Name != tc.name || c.String() != tc.params {
			t.Errorf("Parse(%q) = %s %q, want %s %q", tc.in, c.Name, c.String(), tc.name, tc.params)
		}
	}
}

func TestParseAll(t *testing.T) {
	plan, err := ParseAll(nil)
	if err != nil || len(plan) != 2 || plan[0].Name != "on" || plan[1].Name != "off" {
		t.Fatalf("default plan = %v, %v", plan, err)
	}
	if _, err := ParseAll([]string{"on", "off", "off=nopti"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate name: %v", err)
	}
	if _, err := ParseAll([]string{"on", "off", "all=mitigations=off"}); err == nil || !strings.Contains(err.Error(), "same parameters") {
		t.Errorf("duplicate parameters: %v", err)
	}
}

func TestCmdline(t *testing.T) {
	plan, _ := ParseAll([]string{"on", "off", "nopti=pti=off"})
	base := "console=ttyS0 mitigations=off panic=-1 pti=off"
	if got, want := plan[0].Cmdline(base, plan), "console=ttyS0 panic=-1"; got != want {
		t.Errorf("on: %q, want %q", got, want)
	}
	if got, want := plan[1].Cmdline(base, plan), "console=ttyS0 panic=-1 mitigations=off"; got != want {
		t.Errorf("off: %q, want %q", got, want)
	}
	if got, want := plan[2].Cmdline("console=ttyS0", plan), "console=ttyS0 pti=off"; got != want {
		t.Errorf("nopti: %q, want %q", got, want)
	}
}

// TestCmdlineKeepsInitArgs: the words after "--" go to init (a
// firecracker-style init's --addr, a systemd unit): a plan's line equals
// the running one but for the configuration's tokens, init's arguments
// included, and a "mitigations=off" after "--" is init's, not the kernel's.
func TestCmdlineKeepsInitArgs(t *testing.T) {
	plan, _ := ParseAll([]string{"on", "off"})
	base := `console=ttyS0 reboot=k mitigations=off -- --firecracker-init --addr "10.0.0.2:22" mitigations=off`
	for _, c := range []struct{ cfg, want string }{
		{"on", `console=ttyS0 reboot=k -- --firecracker-init --addr "10.0.0.2:22" mitigations=off`},
		{"off", `console=ttyS0 reboot=k mitigations=off -- --firecracker-init --addr "10.0.0.2:22" mitigations=off`},
	} {
		cfg, _ := Find(plan, c.cfg)
		if got := cfg.Cmdline(base, plan); got != c.want {
			t.Errorf("%s: %q, want %q", c.cfg, got, c.want)
		}
	}
	// An empty init part ("--" alone) stays too.
	if got := plan[0].Cmdline("quiet --", plan); got != "quiet --" {
		t.Errorf("a lone --: %q", got)
	}
}

func snap(t *testing.T, root string) *sysinfo.Snapshot {
	t.Helper()
	s, err := sysinfo.Collect(filepath.Join("..", "sysinfo", "testdata", root))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerify(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	on, off := snap(t, "wsl2-intel-on"), snap(t, "wsl2-intel-off")
	plan := []Config{On, Off}

	// The "on" boot under "on", and the "off" boot under "off", verify.
	if v := Verify(on, On, plan, nil, kb); !v.OK {
		t.Errorf("on boot under on: %v", v.Reasons)
	}
	v := Verify(off, Off, plan, nil, kb)
	if !v.OK {
		t.Errorf("off boot under off: %v", v.Reasons)
	}
	for _, f := range []string{"spectre_v2", "retbleed", "mmio_stale_data", "indirect_target_selection", "spec_store_bypass"} {
		if !slices.Contains(v.ExpectedOff, f) {
			t.Errorf("off: expected_off %v lacks %s", v.ExpectedOff, f)
		}
	}

	// Swapped: each says what differs.
	v = Verify(on, Off, plan, nil, kb)
	if v.OK || !slices.Equal(v.Missing, []string{"mitigations=off"}) || len(v.StillMitigated) == 0 {
		t.Errorf("on boot under off: %+v", v)
	}
	v = Verify(off, On, plan, nil, kb)
	if v.OK || !slices.Equal(v.Foreign, []string{"mitigations=off"}) {
		t.Errorf("off boot under on: %+v", v)
	}

	// The same boot twice is refused.
	v = Verify(off, Off, plan, []string{off.BootID}, kb)
	if v.OK || !strings.Contains(strings.Join(v.Reasons, "\n"), "did not boot again") {
		t.Errorf("same boot id: %+v", v)
	}

	// The command line says off but the kernel ignored it: still mitigated.
	ignored := *on
	ignored.Cmdline.Raw += " mitigations=off"
	v = Verify(&ignored, Off, plan, nil, kb)
	if v.OK || len(v.Missing) != 0 || !slices.Contains(v.StillMitigated, "spectre_v2") {
		t.Errorf("ignored parameter: %+v", v)
	}
	if r := Record(Off, v); r.Name != "off" || !slices.Equal(r.Params, []string{"mitigations=off"}) || r.Verification.OK {
		t.Errorf("Record = %+v", r)
	}
}

// TestVerifyVERWRule: mds=off alone leaves the shared CPU-buffer clear on
// while mmio_stale_data still needs it, so verification must not expect mds
// to go off (the plan says so too), and a boot under it verifies.
func TestVerifyVERWRule(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	s := snap(t, "intel-baremetal")
	noMDS, err := Parse("no-mds=mds=off")
	if err != nil {
		t.Fatal(err)
	}
	booted := *s
	booted.Cmdline.Raw += " mds=off"
	booted.BootID = "another-boot"
	v := Verify(&booted, noMDS, []Config{On, noMDS}, []string{s.BootID}, kb)
	if !v.OK || slices.Contains(v.ExpectedOff, "mds") {
		t.Errorf("mds=off with mmio_stale_data mitigated: %+v", v)
	}
	both, _ := Parse("no-verw=mds=off mmio_stale_data=off tsx_async_abort=off reg_file_data_sampling=off")
	v = Verify(&booted, both, []Config{On, both}, nil, kb)
	if slices.Contains(v.ExpectedOff, "mds") != true || v.OK {
		t.Errorf("every VERW user off: mds must be expected off and the boot (still mds=off only) refused: %+v", v)
	}
}

// TestVerifyReported: a reported snapshot whose parsed states were forged
// (every file "Vulnerable" while its text still says "Mitigation:") does
// not verify as off: the states are read again from the raw text.
func TestVerifyReported(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	on, off := snap(t, "wsl2-intel-on"), snap(t, "wsl2-intel-off")
	plan := []Config{On, Off}
	if v := VerifyReported(off, Off, plan, nil, kb); !v.OK {
		t.Errorf("a true off boot: %v", v.Reasons)
	}
	forged := *on
	forged.Cmdline.Raw += " mitigations=off"
	forged.Vulnerabilities = slices.Clone(on.Vulnerabilities)
	for i := range forged.Vulnerabilities {
		forged.Vulnerabilities[i].State = mitigation.Vulnerable
	}
	if v := Verify(&forged, Off, plan, nil, kb); !v.OK {
		t.Fatalf("the forgery should fool Verify of parsed states (else this test shows nothing): %v", v.Reasons)
	}
	v := VerifyReported(&forged, Off, plan, nil, kb)
	if v.OK || !slices.Contains(v.StillMitigated, "spectre_v2") {
		t.Errorf("forged states verified: %+v", v)
	}
	empty := *off
	empty.Vulnerabilities = nil
	if v := VerifyReported(&empty, Off, plan, nil, kb); v.OK {
		t.Error("a boot without vulnerability files verified as off")
	}
	if v := VerifyReported(nil, Off, plan, nil, kb); v.OK {
		t.Error("no snapshot verified")
	}
}
