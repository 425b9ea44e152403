package advise

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

// modelCmdlines are the command lines the model tests try on every fake
// root: the blanket switches, the auto and force values that defer to the
// default, explicit per-bug values, the attack vectors, the VERW users
// alone and together, and another architecture's parameters.
var modelCmdlines = []string{
	"mitigations=off",
	"mitigations=auto",
	"mitigations=auto,nosmt",
	"mitigations=off retbleed=auto",
	"mitigations=off spectre_v2=auto",
	"mitigations=off spec_store_bypass_disable=auto",
	"mitigations=off spec_store_bypass_disable=prctl",
	"mitigations=off srbds=on",
	"mitigations=off vmscape=force",
	"mitigations=auto,no_guest_host vmscape=force",
	"mitigations=auto,no_guest_host,no_guest_guest",
	"mitigations=auto,no_user_kernel,no_guest_host",
	"mitigations=off mds=full",
	"mitigations=off spectre_v2=retpoline",
	"mitigations=off pti=on",
	"nopti nospectre_v2",
	"mds=off",
	"mds=off tsx_async_abort=off mmio_stale_data=off reg_file_data_sampling=off",
	"spectre_v2_user=off spectre_bhi=vmexit",
	"retbleed=off spec_rstack_overflow=off tsa=off",
	"kpti=0 ssbd=force-off nospectre_bhb",
	"nobp=0 nospec",
	"no_rfi_flush no_stf_barrier",
}

// allRoots are every fake root in the tree: advise's (assembled into
// t.TempDir()) and sysinfo's.
func allRoots(t *testing.T) map[string]string {
	t.Helper()
	roots := map[string]string{}
	for _, l := range testutil.Layers(t, testutil.AdviseRoots()) {
		roots[l.Name] = testutil.AdviseRoot(t, l.Name)
	}
	dir := testutil.SysinfoRoot("")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && e.Name() != "fuzz" {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "proc")); err == nil {
				roots["sys:"+e.Name()] = filepath.Join(dir, e.Name())
			}
		}
	}
	if len(roots) < 10 {
		t.Fatalf("only %d fake roots found", len(roots))
	}
	return roots
}

// TestVerifiersAgree: sectax verify (advise.Verify) and a lab or campaign
// boot's verification (bootconfig.Verify) name the same files still mitigated
// for every command line on every fake root, booted under it or not.
func TestVerifiersAgree(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for name, dir := range allRoots(t) {
		s, err := sysinfo.Collect(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := Probe(dir, s)
		for _, cl := range modelCmdlines {
			tg, err := mitigation.ParseTarget(cl)
			if err != nil {
				t.Fatal(err)
			}
			c, err := bootconfig.Parse("x=" + cl)
			if err != nil {
				t.Fatal(err)
			}
			av := Verify(s, p, tg, kb)
			cv := bootconfig.Verify(s, c, []bootconfig.Config{c}, nil, kb)
			var an []string
			for _, f := range av.StillMitigated {
				an = append(an, f.Name)
			}
			if s.Vulnerabilities == nil {
				continue
			}
			pairs++
			if !slices.Equal(an, cv.StillMitigated) {
				t.Errorf("%s, %q: sectax verify says still mitigated %v, a boot's verification %v", name, cl, an, cv.StillMitigated)
			}
		}
	}
	t.Logf("%d command lines × machines compared", pairs)
}

// TestModelOverRoots: on every fake root and command line the model never
// turns off a file the machine shows not affected or already vulnerable,
// keeps a file only by a parameter on the command line or the shared
// VERW clear, and ignores on arm, riscv and loongarch every parameter.
func TestModelOverRoots(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	for name, dir := range allRoots(t) {
		s, err := sysinfo.Collect(dir)
		if err != nil {
			t.Fatal(err)
		}
		m := s.Machine()
		for _, cl := range modelCmdlines {
			params := mitigation.ParseCmdline(cl).Params
			for _, f := range kb.ExpectedOff(m, params) {
				if v := lineOf(s, f); v.State != mitigation.Mitigated {
					t.Errorf("%s, %q: %s expected off but the machine shows %q", name, cl, f, v.Raw)
				}
			}
			pr := kb.Predict(m, params)
			for file, st := range pr.Files {
				if st.Kept != "" && st.Rule != mitigation.RuleVERW && st.Rule != mitigation.RuleIBRSTrumps && st.Rule != mitigation.RuleKASLRKeepsKPTI && !slices.ContainsFunc(params, func(p mitigation.Param) bool { return p.Raw == st.Kept }) {
					t.Errorf("%s, %q: %s kept by %q, not on the command line", name, cl, file, st.Kept)
				}
				if st.Rule == "" && (st.Off || st.Kept != "") {
					t.Errorf("%s, %q: %s decided without a rule: %+v", name, cl, file, st)
				}
			}
		}
	}
}

func lineOf(s *sysinfo.Snapshot, name string) mitigation.Vulnerability {
	for _, v := range s.Vulnerabilities {
		if v.Name == name {
			return v
		}
	}
	return mitigation.Vulnerability{}
}

// TestAlternativesOverRoots: on every fake root no alternative to
// mitigations=off gives up a protection the machine does not have, names a
// parameter of a bug that is absent or not affected there, or is a no-op;
// and mitigations=off's own "given up" lists only mitigated files.
func TestAlternativesOverRoots(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	off, _ := mitigation.ParseTarget("off")
	alts := 0
	for name, dir := range allRoots(t) {
		s, err := sysinfo.Collect(dir)
		if err != nil {
			t.Fatal(err)
		}
		a := For(s, Probe(dir, s), off, kb)
		for _, l := range a.GivenUp {
			if lineOf(s, l.Name).State != mitigation.Mitigated {
				t.Errorf("%s: mitigations=off gives up %s, which shows %q", name, l.Name, l.From)
			}
		}
		m := s.Machine()
		for _, alt := range a.Alternatives {
			alts++
			for _, n := range alt.GivesUp {
				if lineOf(s, n).State != mitigation.Mitigated {
					t.Errorf("%s: %s gives up %s, which the machine does not have mitigated", name, alt.ID, n)
				}
			}
			params := mitigation.ParseCmdline(alt.Params).Params
			for _, p := range params {
				kp, ok := kb.LookupParam(p.Key())
				if !ok {
					t.Errorf("%s: %s names unknown parameter %s", name, alt.ID, p.Raw)
					continue
				}
				if len(kp.Arch) > 0 && !slices.Contains(kp.Arch, s.CPU.Arch) {
					t.Errorf("%s: %s names %s, which the %s kernel does not parse", name, alt.ID, p.Raw, s.CPU.Arch)
				}
				if kp.Kind == "bug" && len(kp.Files) > 0 && !slices.ContainsFunc(kp.Files, func(f string) bool { return lineOf(s, f).State == mitigation.Mitigated }) {
					t.Errorf("%s: %s names %s, whose bug is absent or not affected here", name, alt.ID, p.Raw)
				}
			}
			running := mitigation.ParseCmdline(s.Cmdline.Raw).Params
			before, after := kb.Predict(m, running), kb.Predict(m, mitigation.Merge(running, params))
			changed := false
			for f := range after.Files {
				if before.Of(f) != after.Of(f) {
					changed = true
				}
			}
			if !changed && !selectsMethod(params) {
				t.Errorf("%s: %s (%s) is a no-op here", name, alt.ID, alt.Params)
			}
		}
	}
	t.Logf("%d alternatives checked", alts)
}

func selectsMethod(params []mitigation.Param) bool { return selects(mitigation.Format(params)) }

// TestPlanArchNotParsed: on 32-bit arm and LoongArch (as the platform
// half names them, Snapshot.CPU.Arch "arm" and "loongarch") mitigations=off
// gives up nothing: those kernels never call cpu_mitigations_off(), and
// kernel-parameters.txt tags mitigations= [X86,PPC,S390,ARM64]; advise
// says so instead of listing spectre_v2 as given up.
func TestPlanArchNotParsed(t *testing.T) {
	off, _ := mitigation.ParseTarget("off")
	for _, arch := range []string{"arm", "loongarch"} {
		s, p, kb := load(t, "sys:arm64-graviton1-a72")
		s.CPU.Arch = arch
		a := For(s, p, off, kb)
		if len(a.GivenUp) != 0 || len(a.Weakened) != 0 || len(a.Alternatives) != 0 {
			t.Errorf("%s: given up %v, weakened %v, %d alternatives", arch, lossNames(a.GivenUp), lossNames(a.Weakened), len(a.Alternatives))
		}
		if !slices.ContainsFunc(a.Warnings, func(w string) bool {
			return strings.Contains(w, "mitigations=off: the "+arch+" kernel does not parse it")
		}) {
			t.Errorf("%s: warnings %q", arch, a.Warnings)
		}
	}
}

// TestGuestNotesForTheArchitecture: a guest's "in this guest" note never
// names another architecture's mechanism (PTI, eIBRS, BHI_DIS_S, VMX,
// retpolines are x86's) — a POWER LPAR was told about PTI on AMD.
func TestGuestNotesForTheArchitecture(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	off, _ := mitigation.ParseTarget("off")
	x86Only := []string{"PTI", "eIBRS", "BHI_DIS_S", "VMX", "retpoline", "AMD"}
	nonX86Guests := 0
	for name, dir := range allRoots(t) {
		s, err := sysinfo.Collect(dir)
		if err != nil {
			t.Fatal(err)
		}
		if s.CPU.Arch == "x86" || !(s.Hypervisor.Guest || s.WSL != nil) {
			continue
		}
		nonX86Guests++
		for _, l := range For(s, Probe(dir, s), off, kb).GivenUp {
			for _, w := range x86Only {
				if strings.Contains(l.GuestNote, w) {
					t.Errorf("%s (%s): the guest note of %s names %s: %q", name, s.CPU.Arch, l.Name, w, l.GuestNote)
				}
			}
		}
	}
	if nonX86Guests == 0 {
		t.Fatal("no non-x86 guest among the fake roots: the test checks nothing")
	}
}
