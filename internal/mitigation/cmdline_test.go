package mitigation

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The study's two WSL 3.0.2 command lines (those of the study baselines,
// internal/baseline/data).
const (
	studyOn  = `initrd=\initrd.img WSL_ROOT_INIT=1 panic=-1 nr_cpus=16 hv_utils.timesync_implicit=1 printk.devkmsg=on page_reporting.page_reporting_order=5 swiotlb=force hv_pci_swiotlb=67108864 hv_storvsc.storvsc_max_hw_queues=4 console=hvc0 debug pty.legacy_count=0 WSL_ENABLE_CRASH_DUMP=1`
	studyOff = studyOn + ` quiet loglevel=0 audit=0 mitigations=off vsyscall=none`
	// This development machine's /proc/cmdline (Firecracker).
	devCmdline = `mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 nomodule random.trust_cpu=1 swiotlb=noforce psi=1 nvproxy.enable=1 page_reporting.page_reporting_order=11 deferred_init=lazy nested_pvm=1 rdinit=/process_api -- --firecracker-init --addr 0.0.0.0:2024 --max-ws-buffer-size 32768`
)

func TestParseCmdline(t *testing.T) {
	p := func(name, value string, has bool, raw string) Param {
		return Param{Name: name, Value: value, HasValue: has, Raw: raw}
	}
	tests := []struct {
		in   string
		want Cmdline
	}{
		{"", Cmdline{}},
		{"  \n", Cmdline{}},
		{"quiet\n", Cmdline{Params: []Param{p("quiet", "", false, "quiet")}}},
		{"a=1 b= c", Cmdline{Params: []Param{p("a", "1", true, "a=1"), p("b", "", true, "b="), p("c", "", false, "c")}}},
		{`foo="a b" bar`, Cmdline{Params: []Param{p("foo", "a b", true, `foo="a b"`), p("bar", "", false, "bar")}}},
		{`"foo=a b" bar`, Cmdline{Params: []Param{p("foo", "a b", true, `"foo=a b"`), p("bar", "", false, "bar")}}},
		{`"quoted flag"`, Cmdline{Params: []Param{p("quoted flag", "", false, `"quoted flag"`)}}},
		{`x=a=b`, Cmdline{Params: []Param{p("x", "a=b", true, "x=a=b")}}},
		{`=foo`, Cmdline{Params: []Param{p("=foo", "", false, "=foo")}}},
		{"a\tb", Cmdline{Params: []Param{p("a", "", false, "a"), p("b", "", false, "b")}}},
		{`a -- b c`, Cmdline{Params: []Param{p("a", "", false, "a")}, InitArgs: []string{"b", "c"}}},
		{`a --`, Cmdline{Params: []Param{p("a", "", false, "a")}, InitArgs: []string{}}},
		{`a --=1`, Cmdline{Params: []Param{p("a", "", false, "a"), p("--", "1", true, "--=1")}}},
		{`unterminated="x y`, Cmdline{Params: []Param{p("unterminated", "x y", true, `unterminated="x y`)}}},
	}
	for _, tt := range tests {
		got := ParseCmdline(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseCmdline(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseCmdlineDevMachine(t *testing.T) {
	c := ParseCmdline(devCmdline)
	if len(c.Params) != 14 || c.Params[0].Raw != "mitigations=auto,no_guest_host,no_guest_guest" {
		t.Fatalf("params = %v", c.Params)
	}
	if want := []string{"--firecracker-init", "--addr", "0.0.0.0:2024", "--max-ws-buffer-size", "32768"}; !cmp.Equal(c.InitArgs, want) {
		t.Errorf("init args = %q, want %q", c.InitArgs, want)
	}
}

func TestParamString(t *testing.T) {
	for _, tt := range []struct {
		p    Param
		want string
	}{
		{Param{Name: "nosmt"}, "nosmt"},
		{Param{Name: "a", HasValue: true}, "a="},
		{Param{Name: "a", Value: "x y", HasValue: true}, `a="x y"`},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.p, got, tt.want)
		}
		// Round trip through the parser.
		back := ParseCmdline(tt.p.String()).Params[0]
		if back.Name != tt.p.Name || back.Value != tt.p.Value || back.HasValue != tt.p.HasValue {
			t.Errorf("round trip of %q gave %+v", tt.p.String(), back)
		}
	}
}

func TestParseParams(t *testing.T) {
	got, err := ParseParams("mitigations=off  audit=0 ")
	if err != nil {
		t.Fatal(err)
	}
	if s := Format(got); s != "mitigations=off audit=0" {
		t.Errorf("Format = %q", s)
	}
	for _, bad := range []string{`a="b`, "a -- b", "--", "=x", "a=é", "a\x01"} {
		if _, err := ParseParams(bad); !errors.Is(err, ErrParams) {
			t.Errorf("ParseParams(%q) error = %v, want ErrParams", bad, err)
		}
	}
}

func TestMergeRemoveEffective(t *testing.T) {
	base := ParseCmdline("console=hvc0 debug nopti spectre-v2=retpoline mitigations=auto quiet").Params
	extra, err := ParseParams("pti=on spectre_v2=off mitigations=off quiet mitigations=auto,nosmt")
	if err != nil {
		t.Fatal(err)
	}
	got := Format(Merge(base, extra))
	// In place: nopti's place goes to pti=on (the same setting), spectre-v2's
	// to spectre_v2=off, mitigations=auto's to every mitigations= of extra
	// in order (the kernel reads each: from 6.17 off's cleared vectors stay
	// cleared after auto,nosmt, FoldGlobal); quiet stays where it was.
	want := "console=hvc0 debug pti=on spectre_v2=off mitigations=off mitigations=auto,nosmt quiet"
	if got != want {
		t.Errorf("Merge = %q, want %q", got, want)
	}
	rm, absent := Remove(base, ParseCmdline("pti spectre_v2 nopti mitigations=off").Params)
	if got := Format(rm); got != "console=hvc0 debug mitigations=auto quiet" || Format(absent) != "pti mitigations=off" {
		t.Errorf("Remove = %q, absent %q", got, Format(absent))
	}
	eff := Effective(ParseCmdline("a=1 b a=2 nopti pti=on").Params)
	if got := Format(eff); got != "b a=2 pti=on" {
		t.Errorf("Effective = %q", got)
	}
	if got := Format(Effective(ParseCmdline("mitigations=off quiet mitigations=auto,no_guest_host").Params)); got != "mitigations=off quiet mitigations=auto,no_guest_host" {
		t.Errorf("Effective of two mitigations= = %q, want both in order", got)
	}
	if p, ok := Lookup(base, "spectre_v2"); !ok || p.Value != "retpoline" {
		t.Errorf("Lookup = %+v %v", p, ok)
	}
	if _, ok := Lookup(base, "nosmt"); ok {
		t.Error("Lookup found nosmt")
	}
	// Merge must not modify its inputs.
	if Format(base) != "console=hvc0 debug nopti spectre-v2=retpoline mitigations=auto quiet" {
		t.Error("Merge modified base")
	}
}

// TestMergeInPlace: the merge that wslconfig set performs and advise
// previews (moved from wslconfig): a replaced parameter keeps its place,
// later copies go, new ones come last, init arguments stay.
func TestMergeInPlace(t *testing.T) {
	c := ParseCmdline("spectre-v2=retpoline nosmt mitigations=auto mitigations=auto,nosmt -- mitigations=init")
	extra := ParseCmdline("mitigations=off spectre_v2=off audit=0").Params
	after := Cmdline{Params: Merge(c.Params, extra), InitArgs: c.InitArgs}
	if got, want := after.String(), "spectre_v2=off nosmt mitigations=off audit=0 -- mitigations=init"; got != want {
		t.Errorf("Merge = %q, want %q", got, want)
	}
	ch := Diff(c.Params, after.Params)
	want := []Change{{Op: "replace", Old: "spectre-v2=retpoline", New: "spectre_v2=off"},
		{Op: "replace", Old: "mitigations=auto", New: "mitigations=off"},
		{Op: "remove", Old: "mitigations=auto,nosmt"}, {Op: "add", New: "audit=0"}}
	if diff := cmp.Diff(want, ch); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	rm, absent := Remove(after.Params, ParseCmdline("nosmt mitigations=auto audit=0 nopti").Params)
	if Format(rm) != "spectre_v2=off mitigations=off" || Format(absent) != "mitigations=auto nopti" {
		t.Errorf("Remove = %q, absent %q", Format(rm), Format(absent))
	}
	if !SameSetting(Param{Name: "nopti"}, Param{Name: "pti", Value: "on", HasValue: true}) || SameSetting(Param{Name: "pti"}, Param{Name: "kpti"}) {
		t.Error("SameSetting")
	}
}

// TestTokens: the words as written (moved from wslconfig's SplitParams).
func TestTokens(t *testing.T) {
	for in, want := range map[string][]string{
		"":                           {},
		"  a  b\tc\n":                {"a", "b", "c"},
		`dyndbg="file x.c +p" quiet`: {`dyndbg="file x.c +p"`, "quiet"},
		`"quoted param" x`:           {`"quoted param"`, "x"},
		"mitigations=off -- single":  {"mitigations=off", "--", "single"},
		`a -- "b  c" d`:              {"a", "--", `"b  c"`, "d"},
		`a="unterminated b c`:        {`a="unterminated b c`},
	} {
		if got := Tokens(in); !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
			t.Errorf("Tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseGlobal(t *testing.T) {
	tests := []struct {
		in   string
		want Global
	}{
		{"off", Global{Value: "off", Option: "off"}},
		{"auto", Global{Value: "auto", Option: "auto"}},
		{"auto,nosmt", Global{Value: "auto,nosmt", Option: "auto", NoSMT: true}},
		{"auto,no_guest_host,no_guest_guest", Global{Value: "auto,no_guest_host,no_guest_guest", Option: "auto", VectorsOff: []string{"guest_host", "guest_guest"}}},
		{",no_cross_thread", Global{Value: ",no_cross_thread", Option: "auto", VectorsOff: []string{"cross_thread"}}},
		{"auto,nosmt,no_user_user", Global{Value: "auto,nosmt,no_user_user", Option: "auto", NoSMT: true, VectorsOff: []string{"user_user"}}},
		{"off,no_user_kernel", Global{Value: "off,no_user_kernel", Option: "off"}},
		{"on", Global{Value: "on", Invalid: []string{"on"}}},
		{"offx", Global{Value: "offx", Invalid: []string{"offx"}}},
		{"", Global{Value: "", Invalid: []string{""}}},
		{"auto,no_bogus", Global{Value: "auto,no_bogus", Option: "auto", Invalid: []string{"no_bogus"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseGlobal(tt.in)); diff != "" {
			t.Errorf("ParseGlobal(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestModeOfCmdline(t *testing.T) {
	tests := []struct {
		cmdline    string
		want       Mode
		reasonPart string
	}{
		{studyOn, ModeOn, "kernel default"},
		{studyOff, ModeOff, "mitigations=off"},
		{"", ModeOn, "kernel default"},
		{"mitigations=auto", ModeOn, "mitigations=auto"},
		{"mitigations=auto,nosmt", ModeOn, "auto,nosmt"},
		{"nosmt", ModeOn, "plus nosmt"},
		{devCmdline, ModeCustom, "attack vectors off: guest_host, guest_guest"},
		{"mitigations=off nopti", ModeOff, "also nopti"},
		{"mitigations=off mds=full,nosmt", ModeCustom, "mds=full,nosmt sets a mitigation again"},
		{"mitigations=off spectre_v2=retpoline", ModeCustom, "spectre_v2=retpoline sets a mitigation again"},
		{"nopti", ModeCustom, "nopti turns mitigations off"},
		{"nopti=1", ModeCustom, "nopti=1 turns mitigations off"},
		{"spectre_v2=retpoline", ModeCustom, "chooses a method"},
		{"mitigations=off mitigations=auto", ModeUnknown, "depends on its version"}, // 6.17+ keeps the vectors off (issue 46)
		{"mitigations=auto mitigations=off", ModeOff, "mitigations=off"},
		{"mitigations=on", ModeOn, "rejects on (\"Unsupported mitigations\"), which leaves mitigations=auto"}, // every kernel keeps the default (issue 46)
		{"spectre_v2=bogus", ModeUnknown, "spectre_v2=bogus"},
		{"retbleed=auto,nosmt", ModeOn, "retbleed=auto,nosmt"},
		{"retbleed=unret,off", ModeCustom, "turns mitigations off"},
		{"quiet loglevel=0 audit=0 vsyscall=none", ModeOn, "kernel default"},
		{"spectre_v2=auto spec_store_bypass_disable=prctl", ModeOn, "spelled out, the default"},
		{"mitigations=off spectre_v2=auto", ModeOff, "mitigations=off"},
		{"mitigations=off mds=full", ModeCustom, "mds=full sets a mitigation again"},
		{"mitigations=auto,nosmt mds=full", ModeOn, "auto,nosmt (mds=full spelled out"},
	}
	for _, tt := range tests {
		got, reason := ModeOfCmdline(tt.cmdline)
		if got != tt.want || !strings.Contains(reason, tt.reasonPart) {
			t.Errorf("ModeOfCmdline(%q) = %s, %q; want %s with %q", tt.cmdline, got, reason, tt.want, tt.reasonPart)
		}
	}
}

func TestClassifyStudyOff(t *testing.T) {
	m := Classify(ParseCmdline(studyOff).Params)
	got := []string{}
	for _, r := range m.Params {
		got = append(got, string(r.Kind)+":"+r.Raw+":"+string(r.Effect))
	}
	want := []string{"toggle:debug:", "toggle:quiet:", "toggle:loglevel=0:", "toggle:audit=0:", "global:mitigations=off:off", "toggle:vsyscall=none:"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Global{Value: "off", Option: "off"}, m.Global); diff != "" {
		t.Error(diff)
	}
	if m.Label() != "off" {
		t.Errorf("Label = %q", m.Label())
	}
}

func TestClassifyFilesAndOverride(t *testing.T) {
	m := Classify(ParseCmdline("spectre-v2=off nosmt nospectre_v2 kvm-intel.vmentry_l1d_flush=never ssbd=force-off mds=full mds=off").Params)
	want := []Relevant{
		{Param: Param{Name: "spectre-v2", Value: "off", HasValue: true, Raw: "spectre-v2=off"}, Kind: KindBug, Effect: EffectOff, Files: []string{"spectre_v2"}},
		{Param: Param{Name: "nosmt", Raw: "nosmt"}, Kind: KindSMT, Effect: EffectOn, Files: []string{"mds", "tsx_async_abort", "mmio_stale_data", "l1tf", "retbleed", "spectre_v2"}},
		{Param: Param{Name: "nospectre_v2", Raw: "nospectre_v2"}, Kind: KindBug, Effect: EffectOff, Files: []string{"spectre_v2", "indirect_target_selection"}},
		{Param: Param{Name: "kvm-intel.vmentry_l1d_flush", Value: "never", HasValue: true, Raw: "kvm-intel.vmentry_l1d_flush=never"}, Kind: KindBug, Effect: EffectOff, Files: []string{"l1tf"}},
		{Param: Param{Name: "ssbd", Value: "force-off", HasValue: true, Raw: "ssbd=force-off"}, Kind: KindBug, Effect: EffectOff, Files: []string{"spec_store_bypass"}, Note: "arm64 only"},
		{Param: Param{Name: "mds", Value: "full", HasValue: true, Raw: "mds=full"}, Kind: KindBug, Effect: EffectDefault, Files: []string{"mds"}, Overridden: true},
		{Param: Param{Name: "mds", Value: "off", HasValue: true, Raw: "mds=off"}, Kind: KindBug, Effect: EffectOff, Files: []string{"mds"}},
	}
	if diff := cmp.Diff(want, m.Params, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if m.Global != nil || m.Label() != "default" {
		t.Errorf("global = %+v", m.Global)
	}
	if got := ParamFiles("spectre-v2"); !cmp.Equal(got, []string{"spectre_v2"}) {
		t.Errorf("ParamFiles = %v", got)
	}
	if len(BugParams()) != 36 || BugParams()[0] != "gather_data_sampling" {
		t.Errorf("BugParams = %v", BugParams())
	}
}

// FuzzParseCmdline checks that any text parses without panic, that every
// parameter's Raw is a piece of the input, and that formatting the
// parameters and parsing again gives the same names and values (for input
// without quotes, whose round trip is exact).
func FuzzParseCmdline(f *testing.F) {
	for _, s := range []string{studyOn, studyOff, devCmdline, `foo="a b" "c=d e" --`, `"`, `a="`, "=\x00=", "mitigations=auto,nosmt,no_user_user"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := ParseCmdline(s)
		for _, p := range c.Params {
			if p.Raw == "" || !strings.Contains(s, p.Raw) {
				t.Fatalf("Raw %q not in input", p.Raw)
			}
			if strings.ContainsAny(p.Raw, " \t\n") && !strings.Contains(p.Raw, `"`) {
				t.Fatalf("unquoted Raw %q contains a space", p.Raw)
			}
		}
		m := Classify(c.Params)
		mode, reason := m.Mode()
		if reason == "" {
			t.Fatal("empty reason")
		}
		switch mode {
		case ModeOn, ModeOff, ModeCustom, ModeUnknown:
		default:
			t.Fatalf("mode %q", mode)
		}
		if strings.ContainsAny(s, "\"\x00") {
			return
		}
		again := ParseCmdline(Format(c.Params))
		if len(again.Params) != len(c.Params) {
			t.Fatalf("round trip: %d params, want %d", len(again.Params), len(c.Params))
		}
		for i := range c.Params {
			a, b := c.Params[i], again.Params[i]
			if a.Name != b.Name || a.Value != b.Value || a.HasValue != b.HasValue {
				t.Fatalf("round trip changed %+v into %+v", a, b)
			}
		}
	})
}

// TestFoldGlobal: several mitigations= tokens are read in order by
// kernel/cpu.c mitigations_parse_cmdline, not "the last wins".
func TestFoldGlobal(t *testing.T) {
	all := []string{"user_kernel", "user_user", "guest_host", "guest_guest", "cross_thread"}
	cases := []struct {
		name        string
		values      []string
		prefix, vec bool
		off, nosmt  bool
		vectorsOff  []string
		stopped     []string
	}{
		{"off then auto: sticky vectors", []string{"off", "auto"}, true, true, false, false, all, nil},
		{"off then auto,nosmt: cross_thread on again", []string{"off", "auto,nosmt"}, true, true, false, true, all[:4], nil},
		{"before 6.17 the last accepted wins", []string{"off", "auto"}, false, false, false, false, nil, nil},
		{"before 6.17 a bogus value changes nothing", []string{"off", "bogus"}, false, false, true, false, nil, []string{"bogus"}},
		{"stops at an unknown item", []string{"auto,no_user_kernel,bogus,no_guest_host"}, true, true, false, false, []string{"user_kernel"}, []string{"bogus"}},
		{"a trailing comma stops at the empty item", []string{"auto,no_user_user,"}, true, true, false, false, []string{"user_user"}, []string{""}},
		{"offx is off (strncmp)", []string{"offx"}, true, true, true, false, all, []string{"x"}},
		{"no vector controls on the architecture", []string{"auto,no_user_kernel"}, true, false, false, false, nil, []string{",no_user_kernel"}},
		{"an empty global option keeps the state", []string{"off", ",no_user_user"}, true, true, true, false, all, nil},
		{"no_cross_thread then auto,nosmt", []string{"auto,no_cross_thread", "auto,nosmt"}, true, true, false, true, nil, nil},
	}
	for _, c := range cases {
		gs := FoldGlobal(c.values, c.prefix, c.vec)
		if gs.Off != c.off || gs.NoSMT != c.nosmt || !slices.Equal(gs.VectorsOff, c.vectorsOff) || !slices.Equal(gs.Stopped, c.stopped) {
			t.Errorf("%s: %q → off %v nosmt %v vectors off %q stopped %q; want %v %v %q %q", c.name, c.values,
				gs.Off, gs.NoSMT, gs.VectorsOff, gs.Stopped, c.off, c.nosmt, c.vectorsOff, c.stopped)
		}
	}
}

// Repeated mitigations= tokens give the mode the kernel's reading of every
// token gives on the release (FoldGlobal), not the last token's; with no
// release the mode is unknown where 6.17+ and older kernels differ.
func TestModeRepeatedGlobal(t *testing.T) {
	cases := []struct {
		line, release string
		want          Mode
		why           string
	}{
		{"mitigations=off mitigations=auto", "6.1.0-57-amd64", ModeOn, "mitigations=off mitigations=auto"},
		{"mitigations=off mitigations=auto", "7.2.13+deb14-amd64", ModeCustom, "attack vectors off: user_kernel, user_user, guest_host, guest_guest, cross_thread"},
		{"mitigations=off mitigations=auto", "", ModeUnknown, "older kernels on"},
		{"mitigations=auto mitigations=off", "", ModeOff, "mitigations=auto mitigations=off"},
		{"mitigations=off mitigations=bogus", "6.1.0-57-amd64", ModeOff, "rejects bogus"},
		{"mitigations=off mitigations=bogus", "", ModeOff, "rejects bogus"},
		{"mitigations=off mitigations=auto,nosmt", "7.2.13+deb14-amd64", ModeCustom, "guest_guest"},
		{"mitigations=off mitigations=auto,nosmt", "6.12.117+deb13-amd64", ModeOn, "mitigations=off mitigations=auto,nosmt"},
		// One token with a part the kernel rejects: off from 6.17 (the
		// corpus's 7.2 and 7.3 boots of mitigations=off,bogus), the
		// default before (6.1, 6.12: nothing changes).
		{"mitigations=off,bogus", "7.3-amd64", ModeOff, "rejects bogus"},
		{"mitigations=off,bogus", "6.12.117+deb13-amd64", ModeOn, "rejects off,bogus"},
		{"mitigations=off,bogus", "", ModeUnknown, "depends on its version"},
		{"mitigations=bogus", "", ModeOn, "rejects bogus"},
	}
	for _, c := range cases {
		mode, why := Classify(ParseCmdline(c.line).Params).ModeFor(c.release)
		if mode != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%q on %q: %s (%s); want %s with %q", c.line, c.release, mode, why, c.want, c.why)
		}
	}
	// One token is read as before: the release does not matter.
	if mode, _ := Classify(ParseCmdline("mitigations=off").Params).ModeFor("6.1.0"); mode != ModeOff {
		t.Errorf("mitigations=off on 6.1: %s", mode)
	}
}

// FuzzFoldGlobal: every command line's mitigations= tokens have a fold;
// the vectors it leaves off are known vectors without repeats, none before
// 6.17, and an off leaves every vector but cross_thread off.
func FuzzFoldGlobal(f *testing.F) {
	for _, s := range []string{"mitigations=off mitigations=auto", "mitigations=auto,no_user_kernel,bogus", "mitigations=offx", "mitigations=,no_cross_thread mitigations=auto,nosmt", "mitigations="} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, cmdline string, prefix bool) {
		var values []string
		for _, p := range ParseCmdline(cmdline).Params {
			if p.Key() == "mitigations" && p.HasValue {
				values = append(values, p.Value)
			}
		}
		gs := FoldGlobal(values, prefix, true)
		seen := map[string]bool{}
		for _, v := range gs.VectorsOff {
			if !slices.Contains(Vectors, v) || seen[v] {
				t.Fatalf("%q: vectors off %q", cmdline, gs.VectorsOff)
			}
			seen[v] = true
		}
		if !prefix && len(gs.VectorsOff) > 0 {
			t.Fatalf("%q: vectors before 6.17: %q", cmdline, gs.VectorsOff)
		}
		if gs.Off && prefix && len(gs.VectorsOff) < 4 {
			t.Fatalf("%q: off leaves vectors on: %q", cmdline, gs.VectorsOff)
		}
		if gs.Off && gs.NoSMT {
			t.Fatalf("%q: off and auto,nosmt at once", cmdline)
		}
	})
}
