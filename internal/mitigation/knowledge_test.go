package mitigation

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/testutil"
)

// specVulnFiles is the full list of vulnerability files at Linux
// 6.17–6.18 (Documentation/ABI/testing/sysfs-devices-system-cpu,
// https://docs.kernel.org/admin-guide/abi-testing.html#abi-sys-devices-system-cpu-vulnerabilities), plus nothing else.
var specVulnFiles = []string{
	"meltdown", "spectre_v1", "spectre_v2", "spec_store_bypass", "l1tf", "mds",
	"tsx_async_abort", "itlb_multihit", "srbds", "mmio_stale_data", "retbleed",
	"spec_rstack_overflow", "gather_data_sampling", "reg_file_data_sampling",
	"ghostwrite", "old_microcode", "indirect_target_selection", "tsa", "vmscape",
}

func mustKB(t testing.TB) *Knowledge {
	t.Helper()
	k, err := KnowledgeBase()
	if err != nil {
		t.Fatalf("embedded knowledge base: %v", err)
	}
	return k
}

// freshKB decodes the embedded JSON again, so a test may mutate it.
func freshKB(t *testing.T) *Knowledge {
	t.Helper()
	k, err := ParseKnowledge(knowledgeJSON)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKnowledgeLoadsAndValidates(t *testing.T) {
	k := mustKB(t)
	if len(k.Vulnerabilities) != len(specVulnFiles) {
		t.Errorf("%d vulnerability entries, spec lists %d files", len(k.Vulnerabilities), len(specVulnFiles))
	}
	for _, e := range k.Vulnerabilities {
		if e.Summary == "" || len(e.Who) == 0 || len(e.Sources) == 0 {
			t.Errorf("%s: summary, who and sources are required", e.Name)
		}
		for _, tag := range e.Taxes {
			if !slices.Contains([]string{"entry-exit", "context-switch", "process-lifecycle", "vm-exit"}, tag) {
				t.Errorf("%s: tag %q not allowed", e.Name, tag)
			}
		}
	}
	for _, p := range k.Params {
		for _, a := range p.Affects {
			if _, ok := k.LookupVulnerability(a); !ok {
				t.Errorf("parameter %s affects unknown %q", p.Key, a)
			}
		}
	}
}

func TestKnowledgeValidateRejects(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(k *Knowledge)
		want   string
	}{
		{"bad tag", func(k *Knowledge) { k.Vulnerabilities[0].Taxes = append(k.Vulnerabilities[0].Taxes, "disk-io") }, `tag "disk-io" is not one of`},
		{"unknown affects", func(k *Knowledge) { k.Params[0].Affects = append(k.Params[0].Affects, "spectre_v9") }, `affects unknown vulnerability "spectre_v9"`},
		{"duplicate param", func(k *Knowledge) { k.Params = append(k.Params, k.Params[1]) }, `duplicate parameter "` + freshKB(t).Params[1].Key + `"`},
		{"duplicate vulnerability", func(k *Knowledge) { k.Vulnerabilities = append(k.Vulnerabilities, k.Vulnerabilities[2]) }, "duplicate vulnerability"},
		{"empty summary", func(k *Knowledge) { k.Vulnerabilities[3].Summary = " " }, "summary is empty"},
		{"no who", func(k *Knowledge) { k.Vulnerabilities[3].Who = nil }, "who is empty"},
		{"no sources", func(k *Knowledge) { k.Vulnerabilities[4].Sources = nil }, "no sources"},
		{"two-line summary", func(k *Knowledge) { k.Vulnerabilities[4].Summary = "a\nb" }, "not one line"},
		{"bad cost", func(k *Knowledge) { k.Vulnerabilities[0].Modes[0].Cost = "huge" }, `cost "huge"`},
		{"verified but unverified fields", func(k *Knowledge) { k.Vulnerabilities[0].Verified = true }, "verified=true"},
		{"unverified names no field", func(k *Knowledge) { k.Params[0].Unverified = []string{"colour"} }, `unknown field "colour"`},
		{"toggle marked mitigation", func(k *Knowledge) {
			for i := range k.Params {
				if k.Params[i].Key == "audit" {
					k.Params[i].Mitigation = true
				}
			}
		}, "kind toggle but mitigation=true"},
		{"alternative keeps unknown", func(k *Knowledge) { k.Alternatives[0].Keeps = append(k.Alternatives[0].Keeps, "nope") }, `unknown vulnerability "nope"`},
		{"alternative unknown param", func(k *Knowledge) { k.Alternatives[0].Params += " frobnicate=1" }, `parameter "frobnicate=1" is not in the knowledge base`},
		{"asymmetric params", func(k *Knowledge) { k.Vulnerabilities[0].Params = nil }, "does not list it in params"},
		{"bad schema", func(k *Knowledge) { k.Schema = "x" }, "schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := freshKB(t)
			c.mutate(k)
			err := k.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestParseKnowledgeRejectsUnknownFieldsAndGarbage(t *testing.T) {
	withTypo := bytes.Replace(knowledgeJSON, []byte(`"common_name"`), []byte(`"commmon_name"`), 1)
	if _, err := ParseKnowledge(withTypo); err == nil || !strings.Contains(err.Error(), "commmon_name") {
		t.Errorf("a misspelt field was accepted: %v", err)
	}
	for _, in := range []string{"", "{", "[]", `{"schema":"sectax.knowledge/v1"} {}`, "\x00\xff"} {
		if _, err := ParseKnowledge([]byte(in)); err == nil {
			t.Errorf("ParseKnowledge(%q) succeeded", in)
		}
	}
}

func TestKnowledgeCoversSpecFiles(t *testing.T) {
	k := mustKB(t)
	for _, name := range specVulnFiles {
		if _, ok := k.LookupVulnerability(name); !ok {
			t.Errorf("no entry for spec vulnerability file %q", name)
		}
	}
}

// TestKnowledgeCoversThisMachine reads the real sysfs directory: every file
// this kernel has must have an entry, and every affected line must match a
// mode of that entry.
func TestKnowledgeCoversThisMachine(t *testing.T) {
	const dir = "/sys/devices/system/cpu/vulnerabilities"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no %s here: %v", dir, err)
	}
	k := mustKB(t)
	for _, de := range ents {
		raw, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Errorf("%s: %v", de.Name(), err)
			continue
		}
		line := strings.TrimSpace(string(raw))
		if _, ok := k.LookupVulnerability(de.Name()); !ok {
			t.Errorf("this machine has %s (%q) but the knowledge base has no entry", de.Name(), line)
			continue
		}
		if kbVerdict(line) != "not_affected" {
			if _, ok := k.ModeOf(de.Name(), line); !ok {
				t.Errorf("%s: %q matches no mode", de.Name(), line)
			}
		}
	}
}

// specLines are sysfs lines as bugs.c prints them (6.17/6.18) and real
// examples; each must match a mode of its entry.
var specLines = [][2]string{
	{"meltdown", "Mitigation: PTI"},
	{"meltdown", "Unknown (XEN PV detected, hypervisor mitigation required)"},
	{"meltdown", "Vulnerable"},
	{"spectre_v1", "Mitigation: usercopy/swapgs barriers and __user pointer sanitization"},
	{"spectre_v1", "Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers"},
	{"spectre_v1", "Mitigation: __user pointer sanitization"},
	{"spectre_v2", "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected"},
	{"spectre_v2", "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; PBRSB-eIBRS: SW sequence; BHI: Vulnerable"},
	{"spectre_v2", "Mitigation: Enhanced / Automatic IBRS + LFENCE"},
	{"spectre_v2", "Mitigation: IBRS"},
	{"spectre_v2", "Vulnerable: LFENCE"},
	{"spectre_v2", "Vulnerable; IBPB: disabled; STIBP: disabled; PBRSB-eIBRS: Not affected"},
	{"spec_store_bypass", "Vulnerable"},
	{"spec_store_bypass", "Mitigation: Speculative Store Bypass disabled"},
	{"spec_store_bypass", "Mitigation: Speculative Store Bypass disabled via prctl"},
	{"spec_store_bypass", "Mitigation: Speculative Store Bypass disabled via prctl and seccomp"},
	{"l1tf", "Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable"},
	{"l1tf", "Vulnerable"},
	{"mds", "Mitigation: Clear CPU buffers; SMT Host state unknown"},
	{"mds", "Vulnerable: Clear CPU buffers attempted, no microcode; SMT vulnerable"},
	{"tsx_async_abort", "Mitigation: TSX disabled"},
	{"mmio_stale_data", "Unknown: No mitigations"},
	{"itlb_multihit", "KVM: Mitigation: Split huge pages"},
	{"itlb_multihit", "KVM: Mitigation: VMX unsupported"},
	{"itlb_multihit", "KVM: Vulnerable"},
	{"itlb_multihit", "Processor vulnerable"},
	{"srbds", "Unknown: Dependent on hypervisor status"},
	{"srbds", "Vulnerable: No microcode"},
	{"retbleed", "Mitigation: untrained return thunk; SMT enabled with STIBP protection"},
	{"retbleed", "Mitigation: Stuffing"},
	{"retbleed", "Mitigation: Enhanced IBRS"},
	{"spec_rstack_overflow", "Vulnerable: No microcode"},
	{"spec_rstack_overflow", "Vulnerable: Safe RET, no microcode"},
	{"spec_rstack_overflow", "Mitigation: IBPB on VMEXIT only"},
	{"gather_data_sampling", "Mitigation: Microcode (locked)"},
	{"gather_data_sampling", "Mitigation: AVX disabled, no microcode"},
	{"reg_file_data_sampling", "Mitigation: Clear Register File"},
	{"indirect_target_selection", "Mitigation: Vulnerable, KVM: Not affected"},
	{"indirect_target_selection", "Mitigation: Retpolines, Stuffing RSB"},
	{"tsa", "Mitigation: Clear CPU buffers: user/kernel boundary"},
	{"tsa", "Mitigation: Clear CPU buffers: VM"},
	{"vmscape", "Mitigation: IBPB before exit to userspace"},
	{"vmscape", "Mitigation: Clear BHB before exit to userspace"},
	{"old_microcode", "Unknown: running under hypervisor"},
	{"spectre_v2", "Mitigation: Full generic retpoline, IBPB: conditional, IBRS_FW, STIBP: conditional, RSB filling"},
	{"spectre_v2", "Mitigation: CSV2, BHB"},
	{"spectre_v2", "Mitigation: CSV2, but not BHB"},
	{"spectre_v2", "Mitigation: Branch predictor hardening, BHB"},
	{"spectre_v2", "Vulnerable: Unprivileged eBPF enabled"},
}

func TestKnowledgeModesMatchSpecLines(t *testing.T) {
	k := mustKB(t)
	for _, c := range specLines {
		m, ok := k.ModeOf(c[0], c[1])
		if !ok {
			t.Errorf("%s: %q matches no mode", c[0], c[1])
			continue
		}
		if !slices.ContainsFunc(append([]string{m.Sysfs}, m.Also...), func(p string) bool { return strings.HasPrefix(c[1], p) }) {
			t.Errorf("%s: mode %s (%q, also %q) is not a prefix of %q", c[0], m.Name, m.Sysfs, m.Also, c[1])
		}
	}
	// The longest prefix wins: the tsa user/kernel line is not the plain
	// "Clear CPU buffers" mode.
	if m, _ := k.ModeOf("tsa", "Mitigation: Clear CPU buffers: user/kernel boundary"); m.Name != "user" {
		t.Errorf("tsa user/kernel line gave mode %q, want user", m.Name)
	}
	if m, _ := k.ModeOf("spectre_v2", "Mitigation: Enhanced / Automatic IBRS + LFENCE"); m.Name != "eibrs-lfence" {
		t.Errorf("eIBRS+LFENCE gave mode %q", m.Name)
	}
}

// TestKnowledgeParams checks the parameters the spec (§1.1, §1.2) names,
// their accepted values, and the study's toggles.
func TestKnowledgeParams(t *testing.T) {
	k := mustKB(t)
	wantValues := map[string][]string{
		"mitigations":                 {"off", "auto", "auto,nosmt", "no_user_kernel", "no_user_user", "no_guest_host", "no_guest_guest", "no_cross_thread"},
		"pti":                         {"on", "off", "auto"},
		"spectre_v2":                  {"on", "off", "auto", "retpoline", "retpoline,generic", "retpoline,lfence", "retpoline,amd", "eibrs", "eibrs,retpoline", "eibrs,lfence", "ibrs"},
		"spectre_v2_user":             {"auto", "on", "off", "prctl", "prctl,ibpb", "seccomp", "seccomp,ibpb"},
		"spectre_bhi":                 {"on", "off", "vmexit"},
		"spec_store_bypass_disable":   {"on", "off", "auto", "prctl", "seccomp"},
		"retbleed":                    {"off", "auto", "unret", "ibpb", "stuff", "nosmt", "force"},
		"spec_rstack_overflow":        {"off", "microcode", "safe-ret", "ibpb", "ibpb-vmexit"},
		"mds":                         {"full", "full,nosmt", "off"},
		"tsx_async_abort":             {"full", "full,nosmt", "off"},
		"mmio_stale_data":             {"full", "full,nosmt", "off"},
		"reg_file_data_sampling":      {"on", "off"},
		"l1tf":                        {"full", "full,force", "flush", "flush,nosmt", "flush,nowarn", "off"},
		"srbds":                       {"off"},
		"gather_data_sampling":        {"off", "force"},
		"indirect_target_selection":   {"on", "off", "force", "vmexit", "stuff"},
		"tsa":                         {"on", "off", "user", "vm"},
		"vmscape":                     {"off", "ibpb", "force"},
		"kvm.nx_huge_pages":           {"force", "off", "auto"},
		"nopti":                       nil,
		"nospectre_v1":                nil,
		"nospectre_v2":                nil,
		"nosmt":                       {"force"},
		"nospec_store_bypass_disable": nil,
	}
	for key, values := range wantValues {
		p, ok := k.LookupParam(key)
		if !ok {
			t.Errorf("no entry for parameter %s", key)
			continue
		}
		if !p.Mitigation || len(p.Affects) == 0 {
			t.Errorf("%s: mitigation=%v affects=%v", key, p.Mitigation, p.Affects)
		}
		var got []string
		for _, v := range p.Values {
			got = append(got, v.Value)
		}
		for _, v := range values {
			if !slices.Contains(got, v) {
				t.Errorf("%s: value %q missing (have %v)", key, v, got)
			}
		}
	}
	for _, key := range []string{"audit", "vsyscall", "quiet", "loglevel", "debug"} {
		p, ok := k.LookupParam(key)
		if !ok || p.Mitigation || p.Kind != "toggle" || p.Measurement == "" {
			t.Errorf("%s: want a toggle marked as no mitigation with a measurement note, got %+v", key, p)
		}
	}
	if a, _ := k.LookupParam("audit=0"); !strings.Contains(a.Measurement, "confounder") {
		t.Errorf("audit=0 must be flagged as a confounder: %q", a.Measurement)
	}
	if got := len(k.Toggles()); got != 5 {
		t.Errorf("%d toggles, want 5", got)
	}
	// mitigations=off implies the per-bug offs of §1.1: its affects covers
	// every vulnerability that has a kernel parameter.
	m, _ := k.LookupParam("mitigations")
	for _, e := range k.Vulnerabilities {
		if len(e.Params) > 0 && !slices.Contains(m.Affects, e.Name) {
			t.Errorf("mitigations= does not affect %s", e.Name)
		}
	}
}

func TestLookupParamSpellings(t *testing.T) {
	k := mustKB(t)
	for in, want := range map[string]string{
		"nopti":                              "nopti",
		"spectre_v2=eibrs":                   "spectre_v2",
		"Spectre-V2=retpoline":               "spectre_v2",
		"spec-store-bypass-disable=prctl":    "spec_store_bypass_disable",
		"nosmt=force":                        "nosmt",
		"kvm.nx_huge_pages=off":              "kvm.nx_huge_pages",
		"  mitigations=auto,no_guest_host  ": "mitigations",
		"audit=0":                            "audit",
	} {
		p, ok := k.LookupParam(in)
		if !ok || p.Key != want {
			t.Errorf("LookupParam(%q) = %q, %v; want %q", in, p.Key, ok, want)
		}
	}
}

func TestAffectedBy(t *testing.T) {
	k := mustKB(t)
	names, unknown := k.AffectedBy("nopti", "nospectre_v2", "audit=0", "quiet", "frob=1")
	if diff := cmp.Diff([]string{"indirect_target_selection", "meltdown", "spectre_v2"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"frob=1"}, unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
	names, _ = k.AffectedBy("mitigations=off")
	// ghostwrite too: arch/riscv/kernel/bugs.c ghostwrite_enable_mitigation
	// checks cpu_mitigations_off().
	if len(names) != 18 || slices.Contains(names, "old_microcode") || !slices.Contains(names, "ghostwrite") {
		t.Errorf("mitigations=off affects %d files: %v", len(names), names)
	}
	if names, unknown := k.AffectedBy(); names != nil || unknown != nil {
		t.Errorf("no tokens: %v %v", names, unknown)
	}
}

func TestLookupUnknownNames(t *testing.T) {
	k := mustKB(t)
	for _, name := range []string{"", "spectre_v9", "Meltdown", "../meltdown", "meltdown\x00", "\xff"} {
		if _, ok := k.LookupVulnerability(name); ok {
			t.Errorf("LookupVulnerability(%q) found an entry", name)
		}
		if _, ok := LookupVulnerability(name); ok {
			t.Errorf("package LookupVulnerability(%q) found an entry", name)
		}
		if s, ok := k.OneLiner(name); ok || s == "" {
			t.Errorf("OneLiner(%q) = %q, %v", name, s, ok)
		}
	}
	for _, key := range []string{"", "=", "=off", "nosuch=1", "mitigation=off", "init=/bin/sh", "spectre_v2x"} {
		if _, ok := k.LookupParam(key); ok {
			t.Errorf("LookupParam(%q) found an entry", key)
		}
		if _, ok := LookupParam(key); ok {
			t.Errorf("package LookupParam(%q) found an entry", key)
		}
	}
	got := ExplainChange("spectre_v9", "Mitigation: X", "Vulnerable")
	if !strings.HasPrefix(got, "spectre_v9: Mitigation: X → Vulnerable — no knowledge-base entry") {
		t.Errorf("unknown file: %q", got)
	}
}

func TestExplainChange(t *testing.T) {
	k := mustKB(t)
	cases := []struct{ name, from, to, want string }{
		{"meltdown", "Mitigation: PTI", "Vulnerable",
			"meltdown: Mitigation: PTI → Vulnerable — protection given up: local code could read kernel memory; mitigation costs entry/exit, context switches"},
		{"meltdown", "vulnerable", "mitigated", "meltdown: vulnerable → mitigated — protection gained (at stake: local code could read kernel memory)"},
		{"meltdown", "Mitigation: PTI\n", "Mitigation: PTI", "meltdown: Mitigation: PTI → Mitigation: PTI — unchanged"},
		{"meltdown", "Not affected", "Not affected", "— unchanged"},
		{"spectre_v2", "Mitigation: Retpolines; STIBP: disabled", "Mitigation: Enhanced / Automatic IBRS", "still mitigated, by another method (cost medium → low)"},
		{"l1tf", "Mitigation: PTE Inversion; VMX: conditional cache flushes", "Mitigation: PTE Inversion; VMX: vulnerable", "still mitigated, details changed; VMX: conditional cache flushes (cost medium) → VMX: vulnerable (cost none)"},
		{"spec_store_bypass", "Mitigation: Speculative Store Bypass disabled via prctl", "Vulnerable", "mitigation costs nothing on the measured kernel paths"},
		{"meltdown", "Not affected", "Mitigation: PTI", "judges the CPU differently"},
		{"srbds", "Mitigation: Microcode", "Unknown: Dependent on hypervisor status", "state unknown on one side"},
		{"vmscape", "", "Not affected", "exists on one side only"},
		{"itlb_multihit", "KVM: Mitigation: Split huge pages", "KVM: Vulnerable", "protection given up: a malicious VM could hang or crash its host"},
		{"spectre_v1", "Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers", "Vulnerable", "still vulnerable"},
	}
	for _, c := range cases {
		got := k.ExplainChange(c.name, c.from, c.to)
		if !strings.Contains(got, c.want) {
			t.Errorf("ExplainChange(%q, %q, %q) =\n  %q\nwant it to contain\n  %q", c.name, c.from, c.to, got, c.want)
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("ExplainChange gave more than one line: %q", got)
		}
	}
}

func TestKernelVersionAndPrecedence(t *testing.T) {
	for in, want := range map[string][3]int{
		"6.18.44-fc-v657":                  {6, 18, 1},
		"6.6.87.2-microsoft-standard-WSL2": {6, 6, 1},
		"4.4.0-19041-Microsoft":            {4, 4, 1},
		"6.17":                             {6, 17, 1},
		"5.15.0-91-generic\n":              {5, 15, 1},
		"":                                 {0, 0, 0},
		"six.one":                          {0, 0, 0},
		"6.":                               {0, 0, 0},
		"+6.1":                             {0, 0, 0},
		"99999.1":                          {0, 0, 0},
	} {
		maj, min, ok := kbKernelVersion(in)
		if got := [3]int{maj, min, map[bool]int{true: 1}[ok]}; got != want {
			t.Errorf("kbKernelVersion(%q) = %v, want %v", in, got, want)
		}
	}
	k := mustKB(t)
	ids := func(rs []KBRule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	if got := ids(k.PrecedenceFor("6.6.87.2-microsoft-standard-WSL2")); !slices.Contains(got, "global-off-wins") || slices.Contains(got, "per-bug-overrides-global") {
		t.Errorf("6.6 rules: %v", got)
	}
	if got := ids(k.PrecedenceFor("6.16.1")); !slices.Contains(got, "global-off-wins") || slices.Contains(got, "per-bug-overrides-global") {
		t.Errorf("6.16 rules: %v", got)
	}
	if got := ids(k.PrecedenceFor("6.17.0")); slices.Contains(got, "global-off-wins") || !slices.Contains(got, "per-bug-overrides-global") {
		t.Errorf("6.17 rules: %v", got)
	}
	if got := ids(k.PrecedenceFor("unknown")); len(got) != len(k.Precedence) {
		t.Errorf("unparsable release: %v, want all rules", got)
	}
	altIDs := func(rel string) []string {
		var out []string
		for _, a := range k.AlternativesFor("off", rel) {
			out = append(out, a.ID)
		}
		return out
	}
	if got := altIDs("6.6.87.2-microsoft-standard-WSL2"); !slices.Contains(got, "retbleed-stuff") || slices.Contains(got, "no-guest-vectors") {
		t.Errorf("alternatives on 6.6: %v", got)
	}
	if got := altIDs("6.18.44"); !slices.Contains(got, "no-guest-vectors") {
		t.Errorf("alternatives on 6.18: %v", got)
	}
	if got := k.AlternativesFor("sideways", "6.18"); len(got) != 0 {
		t.Errorf("unknown target gave %d alternatives", len(got))
	}
}

// TestKnowledgeGolden renders every one-liner and a set of explained
// changes (the study's WSL on→off lines among them); -update rewrites it.
func TestKnowledgeGolden(t *testing.T) {
	k := mustKB(t)
	var b strings.Builder
	b.WriteString("# one-liners (sectax env, text reports)\n")
	for _, name := range k.VulnerabilityNames() {
		s, _ := k.OneLiner(name)
		b.WriteString(name + "\t" + s + "\n")
	}
	b.WriteString("\n# explained changes\n")
	for _, c := range [][3]string{
		{"meltdown", "Mitigation: PTI", "Vulnerable"},
		{"spectre_v1", "Mitigation: usercopy/swapgs barriers and __user pointer sanitization", "Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers"},
		{"spectre_v2", "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop", "Vulnerable; IBPB: disabled; STIBP: disabled; PBRSB-eIBRS: Vulnerable; BHI: Vulnerable"},
		{"spec_store_bypass", "Mitigation: Speculative Store Bypass disabled via prctl", "Vulnerable"},
		{"mds", "Mitigation: Clear CPU buffers; SMT Host state unknown", "Vulnerable; SMT Host state unknown"},
		{"retbleed", "Mitigation: Enhanced IBRS", "Vulnerable"},
		{"spec_rstack_overflow", "Mitigation: Safe RET", "Mitigation: IBPB"},
		{"gather_data_sampling", "Unknown: Dependent on hypervisor status", "Unknown: Dependent on hypervisor status"},
		{"l1tf", "Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT vulnerable", "Mitigation: PTE Inversion; VMX: vulnerable, SMT vulnerable"},
		{"indirect_target_selection", "Mitigation: Aligned branch/return thunks", "Vulnerable"},
		{"tsa", "Vulnerable", "Mitigation: Clear CPU buffers"},
		{"vmscape", "Not affected", "Not affected"},
		{"old_microcode", "Unknown: running under hypervisor", "Vulnerable"},
		{"brand_new_bug", "Mitigation: Something", "Vulnerable"},
	} {
		b.WriteString(k.ExplainChange(c[0], c[1], c[2]) + "\n")
	}
	got := b.String()
	testutil.Golden(t, filepath.Join("testdata", "knowledge.golden"), []byte(got))
}

// FuzzKnowledgeText feeds arbitrary names, sysfs lines and releases to the
// text-facing helpers: no panic, one line out, lookups consistent.
func FuzzKnowledgeText(f *testing.F) {
	f.Add("meltdown", "Mitigation: PTI", "Vulnerable", "6.6.87.2-microsoft-standard-WSL2", "nopti")
	f.Add("spectre_v2", "Mitigation: Retpolines; STIBP: disabled", "Vulnerable; IBPB: disabled", "6.18.44-fc-v657", "Spectre-V2=eibrs,lfence")
	f.Add("tsa", "Mitigation: Clear CPU buffers: VM", "", "4.4.0-19041-Microsoft", "mitigations=,no_cross_thread")
	f.Add("x\ny", "Vulnerable\n", "\x00", "6.", "=")
	k := mustKB(f)
	f.Fuzz(func(t *testing.T, name, from, to, release, param string) {
		s := k.ExplainChange(name, from, to)
		if strings.ContainsAny(s, "\n\r") {
			t.Fatalf("more than one line: %q", s)
		}
		if utf8.ValidString(name+from+to) && !utf8.ValidString(s) {
			t.Fatalf("valid input gave invalid UTF-8: %q", s)
		}
		if one, ok := k.OneLiner(name); one == "" {
			t.Fatalf("OneLiner(%q) = %q, %v", name, one, ok)
		}
		if p, ok := k.LookupParam(param); ok && p.Key == "" {
			t.Fatalf("LookupParam(%q) gave an empty entry", param)
		}
		if maj, min, ok := kbKernelVersion(release); ok && (maj < 0 || min < 0) {
			t.Fatalf("kbKernelVersion(%q) = %d.%d", release, maj, min)
		}
		_ = k.PrecedenceFor(release)
		_ = k.AlternativesFor("off", release)
		_, _ = k.ModeOf(name, from)
	})
}
