package decide

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
)

func input(t *testing.T, root string) Input {
	t.Helper()
	return inputAt(t, testutil.AttributeRoot(t, root))
}

// inputAt is the decision's input for the machine below dir.
func inputAt(t *testing.T, dir string) Input {
	t.Helper()
	s, err := sysinfo.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	return Input{Snap: s, Platform: advise.Probe(dir, s), KB: kb, Root: dir}
}

func option(d *Decision, name string) Option {
	i := slices.IndexFunc(d.Options, func(o Option) bool { return o.Name == name })
	if i < 0 {
		return Option{}
	}
	return d.Options[i]
}

// TestProtect: on a 6.18 host, keeping the user vectors drops the guest
// ones; none drops everything; no flag, no recommendation.
func TestProtect(t *testing.T) {
	for _, c := range []struct {
		protect []string
		want    string
		// line is what to apply when it is not the option's own: this
		// host's BHI clearing (SW loop) goes with guest_host, so keeping
		// user_kernel adds spectre_bhi=on.
		line string
	}{
		{[]string{"user_kernel", "user_user"}, "no-guest", "mitigations=auto,no_guest_host,no_guest_guest spectre_bhi=on"},
		{[]string{"user_kernel"}, "no-guest-cross_thread-user_user", "mitigations=auto,no_user_user,no_guest_host,no_guest_guest,no_cross_thread spectre_bhi=on"},
		{[]string{}, Off, ""},
		{[]string{"guest_host"}, KeepAll, ""},
	} {
		in := input(t, "host-6.18")
		in.Protect = c.protect
		d, err := Decide(in)
		if err != nil {
			t.Fatal(err)
		}
		if d.Recommended == nil || *d.Recommended != c.want {
			t.Errorf("--protect %v: recommended %v, want %s", c.protect, d.Recommended, c.want)
			continue
		}
		rec := option(d, c.want)
		line := rec.Cmdline
		if c.line != "" {
			line = c.line
		}
		if d.Line != c.line {
			t.Errorf("--protect %v: line %q, want %q", c.protect, d.Line, c.line)
		}
		if c.want != KeepAll && (len(d.Steps) == 0 || d.Verify != "sectax verify --expect "+advise.ShellQuote(line)) {
			t.Errorf("--protect %v: steps %v verify %q", c.protect, d.Steps, d.Verify)
		}
		// The line applied keeps what the kept vectors rely on, by the
		// model: advise --target on it gives nothing protected up.
		if lost, _ := in.KB.ProtectionLost(mitigation.NewMachine("x86", in.Snap.CPU.Vendor, in.Snap.CPU.Family, in.Snap.Kernel.Release, "native", in.Snap.Vulnerabilities), mitigation.ParseCmdline(line).Params, d.Protect); len(lost) > 0 && c.want != Off {
			t.Errorf("--protect %v: the line %q still loses %v", c.protect, line, lost)
		}
	}
	in := input(t, "host-6.18")
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Recommended != nil || len(d.Guide) == 0 {
		t.Errorf("no --protect: recommended %v, guide %v", d.Recommended, d.Guide)
	}
	if o := option(d, "no-guest"); o.Cmdline != "mitigations=auto,no_guest_host,no_guest_guest" || !slices.Equal(o.GivesUp, []string{"vmscape"}) {
		t.Errorf("no-guest on 6.18: %+v", o)
	}
}

// TestGivesUpOnlyMitigated: on every root, each option gives up only
// files that show a mitigation there; without runs every saving is null
// and names the command that measures it.
func TestGivesUpOnlyMitigated(t *testing.T) {
	for _, root := range []string{"host-6.18", "wsl2-5.15"} {
		in := input(t, root)
		in.Profile = "wsl-dev"
		d, err := Decide(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range d.Options {
			for _, f := range append(slices.Clone(o.GivesUp), o.Weakened...) {
				i := slices.IndexFunc(in.Snap.Vulnerabilities, func(v mitigation.Vulnerability) bool { return v.Name == f })
				if i < 0 || in.Snap.Vulnerabilities[i].State != mitigation.Mitigated {
					t.Errorf("%s %s gives up or weakens %s, not mitigated there", root, o.Name, f)
				}
			}
			for _, f := range o.GivesUp {
				if slices.Contains(o.Weakened, f) {
					t.Errorf("%s %s: %s is both given up and weakened", root, o.Name, f)
				}
			}
			if o.Saving != nil && o.Name != KeepAll {
				t.Errorf("%s %s: a saving without runs: %v", root, o.Name, o.Saving)
			}
			if o.Name != KeepAll && o.SameAs == "" && o.Measure == "" {
				t.Errorf("%s %s: no command to measure it", root, o.Name)
			}
		}
		if root == "wsl2-5.15" {
			// spectre_v2_user=off turns only spectre_v2's STIBP/IBPB
			// sub-field off: spectre_v2 stays mitigated, weakened.
			if o := option(d, "no-guest-cross_thread-user_user"); slices.Contains(o.GivesUp, "spectre_v2") || !slices.Contains(o.Weakened, "spectre_v2") {
				t.Errorf("wsl2-5.15 %s: gives up %v, weakened %v: want spectre_v2 weakened, not given up", o.Name, o.GivesUp, o.Weakened)
			}
			if !d.Facts.WSL || !d.Facts.Guest || d.Facts.Vectors {
				t.Errorf("wsl facts %+v", d.Facts)
			}
			if o := option(d, "no-guest"); o.SameAs != KeepAll {
				t.Errorf("no-guest on WSL 5.15: %+v", o)
			}
			if *d.Recommended != "no-guest-cross_thread-user_user" || !slices.ContainsFunc(d.Steps, func(s advise.Step) bool { return s.Where == "windows" }) {
				t.Errorf("wsl-dev on WSL: %v %+v", *d.Recommended, d.Steps)
			}
		}
	}
}

// TestSavingsFromStore imports runs labelled as the vector plan names them
// into a real SQLite store and checks each option's saving against compare
// of the same two sides.
func TestSavingsFromStore(t *testing.T) {
	ctx := context.Background()
	in := input(t, "host-6.18")
	db, err := storetest.Ref(t, filepath.Join(t.TempDir(), "s.db")).Open(ctx, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	jitter := []float64{1.000, 1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0005}
	centre := map[string]float64{"on": 12, "no-guest": 11.8, "off": 10}
	var docs []run.Doc
	i := 0
	for _, label := range []string{"on", "no-guest", "off"} {
		xs := make([]float64, len(jitter))
		for j, f := range jitter {
			xs[j] = centre[label] * f
		}
		started := time.Date(2026, 12, 1, 9, i, 0, 0, time.UTC)
		id := fmt.Sprintf("20261201T09%02d00-00000%d", i, i)
		docs = append(docs, run.Doc{Run: &run.Run{Schema: run.Schema, ID: id, Label: label, HostMark: hostMark(t, in.Root, id),
			Started: started, Finished: started.Add(time.Minute), Status: run.StatusComplete, Suite: "quick", Engine: "native", Repetitions: 8,
			Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
				Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}, RawEnv: envOf(t, in, label)})
		i++
	}
	if _, err := db.Import(ctx, docs); err != nil {
		t.Fatal(err)
	}
	arms, err := attribute.StoredArms(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	in.Arms = arms
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	side := func(name string) compare.Side {
		a := arms[slices.IndexFunc(arms, func(a attribute.Arm) bool { return a.Name == name })]
		return compare.RunsSide(name, compare.KindLabel, a.Runs, a.Envs)
	}
	for _, name := range []string{"no-guest", "off"} {
		o := option(d, name)
		if len(o.Saving) != 1 || o.Saving[0].Interval == nil || o.Measure != "" {
			t.Fatalf("%s: %+v", name, o)
		}
		rep, err := pairOf(compare.CompareSides([]compare.Side{side("on"), side(name)}, compare.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		m := rep.Workloads[0].Metrics[0]
		lo, hi := m.RatioInterval.ImpactPct(m.Better)
		s := o.Saving[0]
		if math.Abs(s.Pct-(m.Speedup-1)*100) > 1e-9 || math.Abs(s.Interval.Lo-lo) > 1e-9 || math.Abs(s.Interval.Hi-hi) > 1e-9 {
			t.Errorf("%s: saving %+v, compare %.4f%% [%.4f, %.4f]", name, s, (m.Speedup-1)*100, lo, hi)
		}
		if want := 100 * (12/centre[name] - 1); math.Abs(s.Pct-want) > 0.5 {
			t.Errorf("%s: saving %.3f%%, the samples say %.3f%%", name, s.Pct, want)
		}
	}
	if o := option(d, "no-guest-cross_thread"); o.Saving != nil || o.Measure == "" {
		t.Errorf("unmeasured option: %+v", o)
	}
}

// TestSavingsOnlyFromThisMachine: runs of the vector plan measured on
// another kernel or CPU (a lab guest's kernel under TCG, another host of a
// shared store) are not this machine's saving: left out, with a note that
// says where they were measured, unless --any-machine takes them, and
// says so.
func TestSavingsOnlyFromThisMachine(t *testing.T) {
	in := input(t, "host-6.18")
	other := *in.Snap
	other.Kernel.Release = "6.1.0-57-amd64"
	other.CPU.ModelName = "QEMU Virtual CPU version 2.5+"
	mk := func(name string, centre float64) attribute.Arm {
		there := in
		there.Snap = &other
		var envMap map[string]any
		if err := json.Unmarshal(envOf(t, there, name), &envMap); err != nil {
			t.Fatal(err)
		}
		xs := []float64{centre, centre * 1.001, centre * 0.999, centre * 1.002, centre * 0.998, centre}
		r := &run.Run{Schema: run.Schema, ID: "20261201T090000-" + name, Label: name, Status: run.StatusComplete,
			Results: []run.Result{{Workload: "syscall-basic", Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}
		return attribute.Arm{Name: name, Runs: []*run.Run{r}, Envs: []map[string]any{envMap}}
	}
	in.Arms = []attribute.Arm{mk("on", 12), mk("off", 10)}
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if o := option(d, "off"); o.Saving != nil || o.Measure != "sectax campaign start --plan vectors" {
		t.Errorf("off from another machine's runs: %+v", o)
	}
	note := func(d *Decision, want string) bool {
		return slices.ContainsFunc(d.Facts.Notes, func(n string) bool {
			return strings.Contains(n, want) && strings.Contains(n, "6.1.0-57-amd64 on QEMU Virtual CPU")
		})
	}
	if !note(d, "left out of the savings: 2: 2 without a host mark") {
		t.Errorf("notes %q: want the left-out runs said with where they were measured", d.Facts.Notes)
	}
	in.AnyMachine = true
	if d, err = Decide(in); err != nil {
		t.Fatal(err)
	}
	if o := option(d, "off"); len(o.Saving) != 1 || o.Measure != "" {
		t.Errorf("--any-machine: %+v", o)
	}
	if !note(d, "--any-machine: the savings come from runs measured on") {
		t.Errorf("--any-machine notes %q: want where the savings were measured", d.Facts.Notes)
	}
}

// TestMeasureWhereACampaignCannot: in a guest whose command line its host
// sets (no boot loader here, not WSL) no reboot changes the line, so an
// option's saving is to be measured with the lab, not a campaign.
func TestMeasureWhereACampaignCannot(t *testing.T) {
	in := input(t, "host-6.18")
	guest := *in.Snap
	guest.Hypervisor.Guest, guest.Hypervisor.Vendor, guest.WSL = true, "KVM", nil
	in.Snap, in.Platform.Kind = &guest, advise.PlatformUnknown
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if o := option(d, "off"); !strings.HasPrefix(o.Measure, "sectax lab --plan vectors ") || !strings.HasSuffix(o.Measure, "then sectax decide --any-machine") {
		t.Errorf("off in a guest its host boots: measure with %q, want the lab", o.Measure)
	}
}

// pairOf is the one report of a comparison of two sides.
func pairOf(c *compare.Comparison, err error) (*compare.Report, error) {
	if err != nil {
		return nil, err
	}
	return c.Comparisons[0], nil
}

// stateOf is the environment a run of configuration config records on the
// machine of in: on's is the machine's own; an option's has the option's
// command line added and the files that line turns off read Vulnerable,
// as a boot under it would record them.
func stateOf(t *testing.T, in Input, config string) *sysinfo.Snapshot {
	t.Helper()
	s := *in.Snap
	if config == "on" {
		return &s
	}
	i := slices.IndexFunc(options(in, s.Machine()), func(o Option) bool { return o.Config == config })
	if i < 0 {
		t.Fatalf("no option of configuration %s", config)
	}
	line := options(in, s.Machine())[i].Cmdline
	params := mitigation.ParseCmdline(line).Params
	off := in.KB.ExpectedOffAtBoot(s.Machine(), params)
	s.Cmdline.Raw = strings.TrimSpace(s.Cmdline.Raw + " " + line)
	s.Vulnerabilities = slices.Clone(s.Vulnerabilities)
	for j, v := range s.Vulnerabilities {
		if slices.Contains(off, v.Name) {
			s.Vulnerabilities[j] = mitigation.ParseVulnerability(v.Name, "Vulnerable")
		}
	}
	return &s
}

// envOf is stateOf as the stored environment document.
func envOf(t *testing.T, in Input, config string) []byte {
	t.Helper()
	b, err := json.Marshal(stateOf(t, in, config))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLabelIsNoEvidence: runs labelled as the vector plan names them but
// measured in one state (the same command line and vulnerability files)
// give no saving (issue 47): compare of the same runs says no mitigation
// changed, and decide says so instead of a saving. Runs labelled off that
// record another command line are left out, named.
func TestLabelIsNoEvidence(t *testing.T) {
	in := input(t, "host-6.18")
	mk := func(id, label string, centre float64, s *sysinfo.Snapshot) (*run.Run, map[string]any) {
		xs := []float64{centre, centre * 1.001, centre * 0.999, centre * 1.002, centre * 0.998, centre, centre * 1.0005, centre * 0.9995}
		r := &run.Run{Schema: run.Schema, ID: id, Label: label, Status: run.StatusComplete, HostMark: hostMark(t, in.Root, id),
			Results: []run.Result{{Workload: "syscall-basic", Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}
		b, _ := json.Marshal(s)
		var env map[string]any
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		return r, env
	}
	arm := func(name string, runs ...*run.Run) attribute.Arm { return attribute.Arm{Name: name, Runs: runs} }
	on, onEnv := mk("20261201T090000-000001", "on", 12, stateOf(t, in, "on"))
	// The same boot's state under the label no-guest: no saving.
	same, sameEnv := mk("20261201T090100-000002", "no-guest", 10, stateOf(t, in, "on"))
	// off's state under the label off, and on's state under the label off.
	off, offEnv := mk("20261201T090200-000003", "off", 10, stateOf(t, in, "off"))
	fake, fakeEnv := mk("20261201T090300-000004", "off", 5, stateOf(t, in, "on"))
	a := []attribute.Arm{arm("on", on), arm("no-guest", same), arm("off", off, fake)}
	a[0].Envs, a[1].Envs, a[2].Envs = []map[string]any{onEnv}, []map[string]any{sameEnv}, []map[string]any{offEnv, fakeEnv}
	in.Arms = a
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if o := option(d, "no-guest"); o.Saving != nil {
		t.Errorf("no-guest from runs of on's state: %+v", o.Saving)
	}
	rep, err := pairOf(compare.CompareSides([]compare.Side{compare.RunsSide("on", compare.KindLabel, a[0].Runs, a[0].Envs),
		compare.RunsSide("no-guest", compare.KindLabel, a[1].Runs, a[1].Envs)}, compare.Options{}))
	if err != nil || rep.Conclusion.Kind != compare.ConclusionSameMitigations {
		t.Fatalf("compare on no-guest: %v, %+v", err, rep)
	}
	has := func(want ...string) bool {
		return slices.ContainsFunc(d.Facts.Notes, func(n string) bool {
			return !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(n, w) })
		})
	}
	if !has("1 of the 1 runs labelled no-guest do not record no-guest's state (mitigations=auto,no_guest_host,no_guest_guest)", "run 20261201T090100-000002: mitigations=auto,no_guest_host,no_guest_guest is not on the command line") {
		t.Errorf("notes %q: want why no-guest has no saving", d.Facts.Notes)
	}
	o := option(d, "off")
	if len(o.Saving) != 1 || math.Abs(o.Saving[0].Pct-20) > 0.5 {
		t.Errorf("off: %+v, want the saving of its own state's run only (20%%)", o.Saving)
	}
	if !has("1 of the 2 runs labelled off do not record off's state (mitigations=off)", "run 20261201T090300-000004: mitigations=off is not on the command line") {
		t.Errorf("notes %q: want the off run of on's state named", d.Facts.Notes)
	}

	// Runs labelled on that record off's state beside runs of off: one
	// state under two labels; compare says no mitigation changed, and so
	// does decide.
	on2, on2Env := mk("20261201T090400-000005", "on", 12, stateOf(t, in, "off"))
	in.Arms = []attribute.Arm{{Name: "on", Runs: []*run.Run{on2}, Envs: []map[string]any{on2Env}}, {Name: "off", Runs: []*run.Run{off}, Envs: []map[string]any{offEnv}}}
	if d, err = Decide(in); err != nil {
		t.Fatal(err)
	}
	if o := option(d, "off"); o.Saving != nil {
		t.Errorf("off against on of the same state: %+v", o.Saving)
	}
	if !has("the runs labelled off record the same state as on's (command line, vulnerability files, per-process controls): 'sectax compare on off' says no mitigation changed, so they measure no saving of off") {
		t.Errorf("notes %q: want why off has no saving", d.Facts.Notes)
	}
}

// TestWSLDevNamesWhatItKeeps: a negative control is no saving, and the
// recommendation of --profile wsl-dev names every vector the option
// keeps (issue 47: it named only those the profile asks for).
func TestWSLDevNamesWhatItKeeps(t *testing.T) {
	in := input(t, "host-6.18")
	mk := func(id, label string, centre float64) (*run.Run, map[string]any) {
		xs := []float64{centre, centre * 1.001, centre * 0.999, centre * 1.002, centre * 0.998, centre, centre * 1.0005, centre * 0.9995}
		ys := []float64{10, 10.01, 9.99, 10.02, 9.98, 10, 10.005, 9.995}
		if label == "off" {
			for i := range ys {
				ys[i] *= 0.9 // the control moved: noise or a clock change, never a saving
			}
		}
		r := &run.Run{Schema: run.Schema, ID: id, Label: label, Status: run.StatusComplete, HostMark: hostMark(t, in.Root, id),
			Results: []run.Result{{Workload: "syscall-basic", Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}},
				{Workload: "ctl-user", Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: ys}}}}}
		var env map[string]any
		if err := json.Unmarshal(envOf(t, in, label), &env); err != nil {
			t.Fatal(err)
		}
		return r, env
	}
	on, onEnv := mk("20261201T090000-000001", "on", 12)
	off, offEnv := mk("20261201T090100-000002", "off", 10)
	in.Arms = []attribute.Arm{{Name: "on", Runs: []*run.Run{on}, Envs: []map[string]any{onEnv}}, {Name: "off", Runs: []*run.Run{off}, Envs: []map[string]any{offEnv}}}
	in.Profile = "wsl-dev"
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	o := option(d, "off")
	if len(o.Saving) != 1 || o.Saving[0].Workload != "syscall-basic" {
		t.Errorf("off's savings %+v: want syscall-basic's only, no negative control", o.Saving)
	}
	rec := option(d, *d.Recommended)
	var kept []string
	for _, v := range mitigation.Vectors {
		if !slices.Contains(rec.Drops, v) {
			kept = append(kept, v)
		}
	}
	want := "keeps " + strings.Join(kept, ", ")
	if !slices.Equal(kept, d.Protect) {
		want += " — needed: " + strings.Join(d.Protect, ", ")
	}
	if !strings.HasPrefix(d.Why, want+"; drops ") {
		t.Errorf("why %q, want it to start with %q", d.Why, want)
	}
}
