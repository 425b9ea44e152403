package mitigation

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// rootMachine reads the vulnerability lines of a fake root of
// internal/attribute/testdata/roots.txt (sysinfo is a layer above).
func rootMachine(t *testing.T, root, vendor, release, platform string) Machine {
	t.Helper()
	dir := filepath.Join(testutil.AttributeRoot(t, root), "sys", "devices", "system", "cpu", "vulnerabilities")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var vulns []Vulnerability
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		vulns = append(vulns, ParseVulnerability(e.Name(), strings.TrimSpace(string(b))))
	}
	return NewMachine("x86", vendor, "6", release, platform, vulns)
}

func TestDropVectorsKernelSyntax(t *testing.T) {
	k, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	m := rootMachine(t, "host-6.18", "GenuineIntel", "6.18.7-arch1-1", "native")
	cases := []struct {
		drop     []string
		params   string
		off      []string
		weakened []string
		ok       bool
	}{
		// should_mitigate_vuln: X86_BUG_VMSCAPE is guest_host only;
		// bhi_select_mitigation turns BHI off without guest_host
		// (spectre_v2 shows "BHI: SW loop" here).
		{[]string{"guest_guest", "guest_host"}, "mitigations=auto,no_guest_host,no_guest_guest", []string{"vmscape"}, []string{"spectre_v2"}, true},
		// pti.c and X86_BUG_SPECTRE_V1: user_kernel only; BHI's syscall
		// half needs user_kernel too.
		{[]string{"user_kernel"}, "mitigations=auto,no_user_kernel", []string{"meltdown", "spectre_v1"}, []string{"spectre_v2"}, true},
		// X86_BUG_SPEC_STORE_BYPASS: user_user only; IBPB and STIBP stay
		// for guest_guest.
		{[]string{"user_user"}, "mitigations=auto,no_user_user", []string{"spec_store_bypass"}, nil, true},
		// nothing is served by guest_guest alone: a no-op.
		{[]string{"guest_guest"}, "mitigations=auto,no_guest_guest", nil, nil, false},
		// spectre_v2_user_select_mitigation: STIBP only while
		// smt_mitigations != OFF: spectre_v2's "STIBP: conditional" goes.
		{[]string{"cross_thread"}, "mitigations=auto,no_cross_thread", nil, []string{"spectre_v2"}, true},
	}
	for _, c := range cases {
		d, ok, err := k.DropVectors(m, c.drop)
		if err != nil {
			t.Fatal(err)
		}
		if ok != c.ok || d.Cmdline() != c.params || d.Syntax != "vectors" || !slices.Equal(d.Off, c.off) || !slices.Equal(d.Weakened, c.weakened) {
			t.Errorf("%v: got %q off %v weakened %v ok=%v syntax %s, want %q %v %v ok=%v", c.drop, d.Cmdline(), d.Off, d.Weakened, ok, d.Syntax, c.params, c.off, c.weakened, c.ok)
		}
	}
	// All five: every file but those always on, as the model says of
	// mitigations=off less its per-bug defaults.
	d, ok, _ := k.DropVectors(m, Vectors)
	if !ok || !slices.Contains(d.Off, "mds") || !slices.Contains(d.Off, "retbleed") || !slices.Contains(d.Off, "gather_data_sampling") {
		t.Errorf("all vectors: %+v", d)
	}
}

func TestDropVectorsPerBug(t *testing.T) {
	k, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	m := rootMachine(t, "wsl2-5.15", "GenuineIntel", "5.15.167.4-microsoft-standard-WSL2", "wsl")
	if k.HasVectorControls(m) {
		t.Fatal("5.15 has no attack-vector controls")
	}
	// Guest vectors alone serve nothing here (no vmscape file on 5.15).
	if d, ok, _ := k.DropVectors(m, []string{"guest_host", "guest_guest"}); ok {
		t.Errorf("guest vectors on 5.15: %+v, want a no-op refused", d)
	}
	d, ok, err := k.DropVectors(m, []string{"user_kernel"})
	if err != nil || !ok || d.Syntax != "per-bug" {
		t.Fatalf("user_kernel: %+v ok=%v err=%v", d, ok, err)
	}
	if !slices.Equal(d.Off, []string{"spectre_v1"}) || d.Cmdline() != "nospectre_v1" {
		t.Errorf("user_kernel on 5.15 WSL: %q off %v", d.Cmdline(), d.Off)
	}
	if len(d.Inexact) == 0 {
		t.Error("dropping user_kernel without guest_host says nothing of what it cannot reproduce")
	}
	all, ok, _ := k.DropVectors(m, Vectors)
	if !ok {
		t.Fatalf("all vectors: %+v", all)
	}
	t.Logf("all vectors on 5.15: %s (off %v, inexact %v)", all.Cmdline(), all.Off, all.Inexact)
	for _, tok := range all.Params {
		kp, found := k.LookupParam(ParseCmdline(tok).Params[0].Key())
		if !found || !k.parses(m, kp) {
			t.Errorf("%s: not parsed by 5.15", tok)
		}
		if p := k.Predict(m, ParseCmdline(tok).Params); len(k.Targets(m, ParseCmdline(tok).Params)) == 0 && !p.Of("spectre_v2").Partial {
			t.Errorf("%s: a no-op on this machine", tok)
		}
		for _, newer := range []string{"tsa", "vmscape", "indirect_target_selection", "mitigations"} {
			if strings.HasPrefix(tok, newer+"=") {
				t.Errorf("%s on 5.15: not parsed there or not per-bug", tok)
			}
		}
	}
	if !slices.Contains(all.Params, "spectre_v2_user=off") {
		t.Errorf("all vectors on 5.15: %v lacks spectre_v2_user=off (STIBP/IBPB serve user_user, guest_guest)", all.Params)
	}
	if _, ok, _ := k.DropVectors(Machine{Arch: "arm64", Release: "6.18"}, Vectors); ok {
		t.Error("arm64 has no attack vectors")
	}
	if _, _, err := k.DropVectors(m, []string{"user_kernal"}); err == nil {
		t.Error("unknown vector accepted")
	}
}
