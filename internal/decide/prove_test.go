package decide

import (
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/sysinfo"
)

// observed is a scripted boot: the files name=text.
func observed(cmdline string, files ...string) *sysinfo.Snapshot {
	s := &sysinfo.Snapshot{Cmdline: sysinfo.Cmdline{Raw: cmdline}, Kernel: sysinfo.Kernel{Release: "6.1.0-57-amd64"}}
	s.CPU.Arch, s.CPU.Vendor, s.CPU.Family = "x86", "GenuineIntel", "6"
	s.SMT.Control = "notsupported"
	for _, f := range files {
		name, raw, _ := strings.Cut(f, "=")
		s.Vulnerabilities = append(s.Vulnerabilities, mitigation.ParseVulnerability(name, raw))
	}
	return s
}

var (
	baseFiles = []string{
		"l1tf=Not affected",
		"mds=Mitigation: Clear CPU buffers; SMT Host state unknown",
		"meltdown=Mitigation: PTI",
		"spectre_v1=Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
		"spectre_v2=Mitigation: Retpolines; STIBP: conditional; RSB filling",
	}
	offFiles = []string{
		"l1tf=Not affected",
		"mds=Vulnerable; SMT Host state unknown",
		"meltdown=Vulnerable",
		"spectre_v1=Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers",
		"spectre_v2=Vulnerable; STIBP: disabled; RSB filling",
	}
	userFiles = []string{
		"l1tf=Not affected",
		"mds=Mitigation: Clear CPU buffers; SMT Host state unknown",
		"meltdown=Mitigation: PTI",
		"spectre_v1=Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
		"spectre_v2=Mitigation: Retpolines; STIBP: disabled; RSB filling",
	}
)

func scripted() (*Decision, proven.Input) {
	d := &Decision{Options: []Option{
		{Name: KeepAll, GivesUp: []string{}, Weakened: []string{}},
		// The model predicts spectre_v2_user=off changes nothing here.
		{Name: "user", Cmdline: "spectre_v2_user=off", GivesUp: []string{}, Weakened: []string{}},
		{Name: Off, Cmdline: "mitigations=off", GivesUp: []string{"mds", "meltdown", "spectre_v1", "spectre_v2"}, Weakened: []string{}},
	}}
	in := proven.Input{Accel: "tcg", CPU: "Cascadelake-Server", HostCPU: "AMD EPYC", Obs: map[string]*sysinfo.Snapshot{
		"":                    observed("console=ttyS0", baseFiles...),
		"spectre_v2_user=off": observed("console=ttyS0 spectre_v2_user=off", userFiles...),
		"mitigations=off":     observed("console=ttyS0 mitigations=off", offFiles...),
	}, Stored: map[string]bool{"mitigations=off": true}, Booted: 2}
	return d, in
}

// TestProveSideBySide: each option's predicted and observed sets side by
// side, the predicted ones from the model's per-file prediction of the
// option's line (one path: not the sets the option was handed, which here
// say spectre_v2_user=off changes nothing), and the observed sets become
// the option's.
func TestProveSideBySide(t *testing.T) {
	d, in := scripted()
	if err := Prove(d, in, kbT(t)); err != nil {
		t.Fatal(err)
	}
	p := d.Proof
	if len(p.Rows) != 3 || !p.Agree || p.Booted != 2 || p.Stored != 1 {
		t.Fatalf("proof %+v", p)
	}
	keep, user, off := p.Rows[0], p.Rows[1], p.Rows[2]
	if !keep.Agree || !slices.Equal(keep.Observed.Kept, []string{"mds", "meltdown", "spectre_v1", "spectre_v2"}) {
		t.Errorf("keep-all %+v", keep)
	}
	if !user.Agree || !slices.Equal(user.Predicted.Weakened, []string{"spectre_v2"}) || !slices.Equal(user.Observed.Weakened, []string{"spectre_v2"}) || len(user.Disagreements) != 0 {
		t.Errorf("user row %+v", user)
	}
	if !slices.Equal(d.Options[1].Weakened, []string{"spectre_v2"}) {
		t.Errorf("the option keeps the model's sets %v, not the observed", d.Options[1].Weakened)
	}
	if !off.Agree || !off.Stored || !slices.Equal(off.Observed.GivesUp, []string{"mds", "meltdown", "spectre_v1", "spectre_v2"}) || len(off.Disagreements) != 0 {
		t.Errorf("off row %+v", off)
	}
	if len(p.Emulated) == 0 || !strings.Contains(p.Emulated[0], "Cascadelake-Server") || !strings.Contains(p.Emulated[0], "AMD EPYC") {
		t.Errorf("emulated %q", p.Emulated)
	}
	if !slices.ContainsFunc(p.Guest, func(s string) bool { return strings.Contains(s, "SMT Host state unknown") }) {
		t.Errorf("guest %q", p.Guest)
	}
}

// TestProveObservedOverModel: the model predicts a file given up that
// the kernel keeps: the file is named with both texts, the row and the
// proof disagree, and the option's sets are the kernel's.
func TestProveObservedOverModel(t *testing.T) {
	d, in := scripted()
	in.Obs["mitigations=off"] = observed("console=ttyS0 mitigations=off", append(slices.Clone(offFiles[:2]), "meltdown=Mitigation: PTI", offFiles[3], offFiles[4])...)
	if err := Prove(d, in, kbT(t)); err != nil {
		t.Fatal(err)
	}
	r := d.Proof.Rows[2]
	// meltdown: the model's file (mitigations=off turns PTI off) against
	// the boot's.
	want := []string{"off: meltdown differs: predicted vulnerable, observed mitigated \"Mitigation: PTI\""}
	if !slices.Equal(r.Disagreements, want) || r.Agree || d.Proof.Agree {
		t.Errorf("disagreements\n%q\nwant\n%q", r.Disagreements, want)
	}
	if !slices.Equal(d.Options[2].GivesUp, []string{"mds", "spectre_v1", "spectre_v2"}) {
		t.Errorf("off gives up %v", d.Options[2].GivesUp)
	}
}

// TestProveSMTAndMissing: a line that turns SMT off says so; a line
// without its boot is an error; a kernel without vulnerability files
// proves nothing and says so.
func TestProveSMTAndMissing(t *testing.T) {
	d, in := scripted()
	on, off := true, false
	in.Obs[""].SMT = sysinfo.SMT{Control: "on", Active: &on}
	in.Obs["spectre_v2_user=off"].SMT = sysinfo.SMT{Control: "off", Active: &off}
	if err := Prove(d, in, kbT(t)); err != nil {
		t.Fatal(err)
	}
	if r := d.Proof.Rows[1]; !slices.Contains(r.Disagreements, "user: SMT control off, active false under this line (control on, active true by default)") {
		t.Errorf("SMT line missing: %q", r.Disagreements)
	}
	d, in = scripted()
	delete(in.Obs, "mitigations=off")
	if err := Prove(d, in, kbT(t)); err == nil || !strings.Contains(err.Error(), "no boot of option off") {
		t.Errorf("missing boot: %v", err)
	}
	d, in = scripted()
	for k := range in.Obs {
		in.Obs[k].Vulnerabilities = nil
	}
	if err := Prove(d, in, kbT(t)); err != nil || d.Proof.Agree || len(d.Proof.Notes) == 0 || !strings.Contains(d.Proof.Notes[0], "cannot tell") {
		t.Errorf("no files: %v %+v", err, d.Proof)
	}
}

func kbT(t *testing.T) *mitigation.Knowledge {
	t.Helper()
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	return kb
}

// TestProveFoldedAndRecommended: an option the model folds into keep-all
// boots its own line (not the default's), and its row's prediction is the
// model's per-file prediction of that line (STIBP disabled: spectre_v2
// weakened, as the boot shows), not the sets the option was given; the
// option then carries what the boot showed. One no parameter spells is not
// booted and a note says so, and the recommended line is a row of its own.
func TestProveFoldedAndRecommended(t *testing.T) {
	d, in := scripted()
	d.Options[1] = Option{Name: "user", SameAs: KeepAll, line: "spectre_v2_user=off", GivesUp: []string{}, Weakened: []string{}}
	d.Options = append(d.Options, Option{Name: "none-here", SameAs: KeepAll, GivesUp: []string{}, Weakened: []string{}})
	d.Line = "mitigations=off"
	if got, want := ProofLines(d), []string{"", "spectre_v2_user=off", "mitigations=off"}; !slices.Equal(got, want) {
		t.Errorf("proof lines %q, want %q", got, want)
	}
	if err := Prove(d, in, kbT(t)); err != nil {
		t.Fatal(err)
	}
	p := d.Proof
	if len(p.Rows) != 4 || p.Rows[1].Cmdline != "spectre_v2_user=off" || p.Rows[3].Option != RecommendedRow || p.Rows[3].Cmdline != "mitigations=off" {
		t.Fatalf("rows %+v", p.Rows)
	}
	if r := p.Rows[1]; !r.Agree || !slices.Equal(r.Predicted.Weakened, []string{"spectre_v2"}) || !slices.Equal(d.Options[1].Weakened, []string{"spectre_v2"}) {
		t.Errorf("the folded option's own boot (STIBP disabled): row %+v, option weakens %v", r, d.Options[1].Weakened)
	}
	if r := p.Rows[3]; !r.Agree || !slices.Equal(r.Observed.GivesUp, r.Predicted.GivesUp) {
		t.Errorf("recommended row %+v", r)
	}
	if !slices.ContainsFunc(p.Notes, func(n string) bool {
		return strings.HasPrefix(n, "none-here: no command line of this kernel spells it")
	}) {
		t.Errorf("notes %q", p.Notes)
	}
}
