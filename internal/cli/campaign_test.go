package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

// fakeBoots is a machine for the CLI's campaign tests: a root tree copied
// from a fixture and rewritten on every boot requested (the real
// mechanisms are tested in internal/campaign).
type fakeBoots struct {
	t         *testing.T
	root      string
	n         int
	obeyOff   bool // false: off boots come up with the default command line
	requested []string
	// offFiles are, per configuration besides on and off, the
	// vulnerability files its boot turns off (taken from the off fixture).
	offFiles map[string][]string
}

const (
	cliFixtureOn  = "../sysinfo/testdata/wsl2-intel-on"
	cliFixtureOff = "../sysinfo/testdata/wsl2-intel-off"
)

func newFakeBoots(t *testing.T) *fakeBoots { return newFakeBootsIn(t, t.TempDir()) }

// newFakeBootsIn is newFakeBoots with its tree at root.
func newFakeBootsIn(t *testing.T, root string) *fakeBoots {
	f := &fakeBoots{t: t, root: root, obeyOff: true}
	f.copy(cliFixtureOn, "")
	f.write("proc/sys/kernel/random/boot_id", "boot-0")
	f.write("proc/loadavg", "0.05 0.10 0.10 1/80 777")
	return f
}

func (f *fakeBoots) write(rel, s string) {
	p := filepath.Join(f.root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeBoots) copy(src, rel string) {
	err := filepath.WalkDir(filepath.Join(src, rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(f.root, r), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(f.root, r), b, 0o644)
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeBoots) Name() string                                      { return "manual" }
func (f *fakeBoots) Check(context.Context, campaign.BootRequest) error { return nil }
func (f *fakeBoots) Boot(_ context.Context, req campaign.BootRequest, _ func(campaign.Change) error) error {
	f.requested = append(f.requested, req.Config.Name+": "+req.Cmdline)
	f.n++
	off := req.Config.Name == "off" && f.obeyOff
	cmdline, src := req.Cmdline, cliFixtureOn
	if off {
		src = cliFixtureOff
	} else if req.Config.Name == "off" {
		// The boot ignores the request: the default command line.
		b, _ := os.ReadFile(filepath.Join(cliFixtureOn, "proc/cmdline"))
		cmdline = strings.TrimSpace(string(b))
	}
	f.write("proc/cmdline", cmdline)
	f.write("proc/sys/kernel/random/boot_id", fmt.Sprintf("boot-%d", f.n))
	vul := "sys/devices/system/cpu/vulnerabilities"
	os.RemoveAll(filepath.Join(f.root, vul))
	f.copy(src, vul)
	for _, name := range f.offFiles[req.Config.Name] {
		f.copy(cliFixtureOff, filepath.Join(vul, name))
	}
	return nil
}

func campaignDepsFor(f *fakeBoots) Deps {
	d := fixedDeps(nil)
	ids := 0
	d.NewRunID = func() string { ids++; return fmt.Sprintf("20261130T090000-00000%d", ids) }
	fixed := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	d.Campaign = campaignDeps{Mechanism: f, Exe: "/usr/local/bin/sectax",
		Settle: &campaign.Settler{Now: func() time.Time { return fixed }}}
	return d
}

var tinyCampaign = []string{"--config", "on", "--config", "off", "--boots", "1", "--seed", "7", "--label", "cmp",
	"--suite", "quick", "--only", "syscall-basic", "--param", "syscall-basic.loops=2000", "--runs", "2", "--warmup", "0"}

// scrubDB replaces the test's database path in output.
func scrubDB(s string) string {
	return strings.ReplaceAll(s, os.Getenv("SECTAX_DB"), "/DB/sectax.db")
}

func TestCampaignCLI(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	f := newFakeBoots(t)
	deps := campaignDepsFor(f)
	root := []string{"--root", f.root, "campaign"}
	out, errOut, code := sectax(t, deps, append(append(root, "start"), tinyCampaign...)...)
	if code != 0 {
		t.Fatalf("start: %d %s", code, errOut)
	}
	testutil.Golden(t, filepath.Join("testdata", "campaign-start.txt"), []byte(scrubDB(out)))
	for i := 0; i < 2; i++ {
		if _, errOut, code := sectax(t, deps, append(root, "resume")...); code != 0 {
			t.Fatalf("resume %d: %d %s", i, code, errOut)
		}
	}
	if len(f.requested) != 2 || !strings.HasSuffix(f.requested[1], "mitigations=off") || strings.Contains(f.requested[0], "mitigations=off") {
		t.Fatalf("boots requested: %q", f.requested)
	}
	out, _, code = sectax(t, deps, append(root, "status")...)
	if code != 0 {
		t.Fatal(code)
	}
	// The run ids and quiet waits are the fixed ones; the measured
	// numbers never appear in status.
	testutil.Golden(t, filepath.Join("testdata", "campaign-finished.txt"), []byte(scrubDB(out)))
	out, _, _ = sectax(t, deps, append(root, "status", "--format", "json")...)
	testutil.Golden(t, filepath.Join("testdata", "campaign-finished.json"), []byte(scrubDB(out)))

	// The stored runs carry their config and campaign blocks.
	db, err := storetest.Ref(t, os.Getenv("SECTAX_DB")).Open(context.Background(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, _, err := db.Resolve(context.Background(), "cmp-off")
	if err != nil || len(ids) != 1 {
		t.Fatalf("cmp-off: %v %v", ids, err)
	}
	r, err := db.Get(context.Background(), ids[0])
	db.Close()
	if err != nil || r.Config == nil || !r.Config.Verification.OK || r.Campaign == nil || r.Campaign.Step != 2 || len(r.Results) != 1 || len(r.Results[0].Metrics[0].Samples) != 2 {
		t.Fatalf("off run: %+v %v", r, err)
	}

	out, errOut, code = sectax(t, deps, append(root, "report")...)
	if code != 0 || !strings.Contains(out, "syscall-basic") || !strings.Contains(out, "cmp-on") {
		t.Fatalf("report: %d %s\n%s", code, errOut, out)
	}
	out, _, code = sectax(t, deps, append(root, "report", "--format", "json")...)
	var rep map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("report json: %d %s", code, out)
	}
	// A new campaign may start now; resume with none running says so.
	if _, errOut, code := sectax(t, deps, append(root, "resume")...); code != 1 || !strings.Contains(errOut, "is finished") {
		t.Fatalf("resume of a finished campaign: %d %s", code, errOut)
	}
}

func TestCampaignCLIVerifyFails(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	f := newFakeBoots(t)
	f.obeyOff = false
	deps := campaignDepsFor(f)
	root := []string{"--root", f.root, "campaign"}
	if _, errOut, code := sectax(t, deps, append(append(root, "start"), tinyCampaign...)...); code != 0 {
		t.Fatalf("start: %s", errOut)
	}
	var code int
	var errOut string
	for i := 0; i < 4 && code == 0; i++ {
		_, errOut, code = sectax(t, deps, append(root, "resume")...)
	}
	errOut = testutil.Unwrap(errOut)
	if code != ExitUnmet || strings.Count(strings.TrimSpace(errOut), "\n") > 3 ||
		!strings.Contains(errOut, "step 2 (off) did not verify twice") || !strings.Contains(errOut, "mitigations=off is not on the command line") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, _, _ := sectax(t, deps, append(root, "status")...)
	testutil.Golden(t, filepath.Join("testdata", "campaign-failed.txt"), []byte(scrubDB(out)))
}

func TestCampaignCLIUsage(t *testing.T) {
	f := newFakeBoots(t)
	deps := campaignDepsFor(f)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"start", "--config", "on"}, 2, "at least two configurations"},
		{[]string{"start", "--config", "on", "--config", "Off!"}, 2, "bad configuration"},
		{[]string{"start", "--boots", "0"}, 2, "--boots 0"},
		{[]string{"start", "--via", "floppy", "--only", "syscall-basic"}, 2, `--via "floppy" is not accepted`},
		{[]string{"start", "--only", "nope"}, 2, `unknown workload "nope"`},
		{[]string{"start", "--runs", "0"}, 2, "--runs 0 measures nothing"},
		{[]string{"start", "--only", "syscall-basic,,sched-pipe"}, 2, "--only needs workload ids"},
		{[]string{"start", "--label", "baseline:a"}, 2, "--label"},
		{[]string{"resume"}, 1, "nothing to resume"},
		{[]string{"status", "--format", "csv"}, 2, "--format"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
			_, errOut, code := sectax(t, deps, append([]string{"--root", f.root, "campaign"}, c.args...)...)
			if code != c.code || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, c.code, c.want)
			}
		})
	}
}

// TestCampaignReportMulti: with three configurations, campaign report
// compares each with the first in the multi-side layout, one Holm family.
func TestCampaignReportMulti(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	f := newFakeBoots(t)
	deps := campaignDepsFor(f)
	root := []string{"--root", f.root, "campaign"}
	args := append(append([]string{"start"}, tinyCampaign...), "--config", "noaudit=audit=0")
	if _, errOut, code := sectax(t, deps, append(root, args...)...); code != 0 {
		t.Fatalf("start: %d %s", code, errOut)
	}
	for i := 0; i < 3; i++ {
		if _, errOut, code := sectax(t, deps, append(root, "resume")...); code != 0 {
			t.Fatalf("resume %d: %d %s", i, code, errOut)
		}
	}
	out, errOut, code := sectax(t, deps, append(root, "report")...)
	if code != 0 {
		t.Fatalf("report: %d %s", code, errOut)
	}
	if !strings.Contains(out, "A = cmp-on  B = cmp-off  C = cmp-noaudit") || !strings.HasPrefix(out, "B: ") || !strings.Contains(conclusionOf(out), "C: ") {
		t.Errorf("report is not the multi-side layout of the three configurations:\n%s", out)
	}
	out, _, code = sectax(t, deps, append(root, "report", "--format", "json")...)
	var doc struct {
		Schema      string
		Comparisons []struct{ B struct{ Ref string } }
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Schema != "sectax.compare/v3" || len(doc.Comparisons) != 2 {
		t.Fatalf("report json: exit %d, %+v", code, doc)
	}
}

// TestCampaignPlanLeaveOneOut: --plan leave-one-out takes its
// configurations from the attribution plan of the running kernel (the
// fixture), boots each, and verifies that each turned off exactly the
// file it is expected to; a boot whose parameter had no effect is not
// measured (exit 3, naming the file).
func TestCampaignPlanLeaveOneOut(t *testing.T) {
	snap, err := sysinfo.Collect(cliFixtureOn)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := mitigation.KnowledgeBase()
	p, err := attribute.MakeDesign(snap, kb)
	if err != nil {
		t.Fatal(err)
	}
	offFiles := map[string][]string{}
	var want []string
	for _, c := range p.Configurations {
		if c.Kind == attribute.KindBase || c.Kind == attribute.KindLeaveOneOut {
			want = append(want, c.Name)
		}
		for _, e := range c.Expected {
			offFiles[c.Name] = append(offFiles[c.Name], e.File)
		}
	}
	plan := []string{"start", "--plan", "leave-one-out", "--boots", "1", "--seed", "7", "--label", "loo",
		"--suite", "quick", "--only", "syscall-basic", "--param", "syscall-basic.loops=2000", "--runs", "2", "--warmup", "0"}

	t.Run("verified", func(t *testing.T) {
		t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
		f := newFakeBoots(t)
		f.offFiles = offFiles
		deps := campaignDepsFor(f)
		root := []string{"--root", f.root, "campaign"}
		_, errOut, code := sectax(t, deps, append(root, plan...)...)
		errOut = testutil.Unwrap(errOut)
		if code != 0 || !strings.Contains(errOut, "plan leave-one-out for kernel "+snap.Kernel.Release+": "+strconv.Itoa(len(want))+" configurations: "+strings.Join(want, ", ")) {
			t.Fatalf("start: exit %d: %s", code, errOut)
		}
		for i := 0; i < len(want); i++ {
			if _, errOut, code := sectax(t, deps, append(root, "resume")...); code != 0 {
				t.Fatalf("resume %d: exit %d: %s", i, code, errOut)
			}
		}
		db, err := storetest.Ref(t, os.Getenv("SECTAX_DB")).Open(context.Background(), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, name := range want {
			ids, _, err := db.Resolve(context.Background(), "loo-"+name)
			if err != nil || len(ids) != 1 {
				t.Fatalf("loo-%s: %v %v", name, ids, err)
			}
			r, err := db.Get(context.Background(), ids[0])
			if err != nil {
				t.Fatal(err)
			}
			v := r.Config.Verification
			if !v.OK || len(v.StillMitigated) != 0 {
				t.Errorf("%s: verification %+v", name, v)
			}
			if name != "on" && name != "off" && !slices.Equal(v.ExpectedOff, offFiles[name]) {
				t.Errorf("%s: verification expected %v off, the plan %v", name, v.ExpectedOff, offFiles[name])
			}
		}
		out, errOut, code := sectax(t, deps, append(root, "report")...)
		if code != 0 || !strings.Contains(out, string(rune('A'+len(want)-1))+" = loo-no-spec_store_bypass") {
			t.Errorf("report: exit %d %s\n%s", code, errOut, out)
		}
	})

	t.Run("parameter without effect", func(t *testing.T) {
		// spectre_v2=off also takes retbleed and ITS (issue 37): the
		// configuration is named by its first file, no-retbleed.
		t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
		f := newFakeBoots(t)
		f.offFiles = map[string][]string{}
		for k, v := range offFiles {
			if k != "no-retbleed" {
				f.offFiles[k] = v
			}
		}
		deps := campaignDepsFor(f)
		root := []string{"--root", f.root, "campaign"}
		if _, errOut, code := sectax(t, deps, append(root, plan...)...); code != 0 {
			t.Fatalf("start: %s", errOut)
		}
		var code int
		var errOut string
		for i := 0; i < 2*len(want) && code == 0; i++ {
			_, errOut, code = sectax(t, deps, append(root, "resume")...)
		}
		if code != ExitUnmet || !strings.Contains(errOut, "(no-retbleed) did not verify twice") || !strings.Contains(errOut, "still says") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})

	t.Run("usage", func(t *testing.T) {
		f := newFakeBoots(t)
		deps := campaignDepsFor(f)
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"start", "--plan", "leave-one-out", "--config", "on"}, "--plan and --config are mutually exclusive"},
			{[]string{"start", "--plan", "everything"}, `--plan "everything" is not accepted (accepted: leave-one-out, cumulative, study, vectors)`},
		} {
			t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
			_, errOut, code := sectax(t, deps, append([]string{"--root", f.root, "campaign"}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
			}
		}
	})
}

// adaptiveCampaign drives an adaptive campaign of syscall-basic, on and
// off, 4 boots planned, through start and resume (10 minutes of the test's
// clock a boot) until it is finished, and returns its status and the boots
// it requested. reg is the workloads (nil: the real ones).
func adaptiveCampaign(t *testing.T, reg *workload.Registry, target, budget string) (campaign.Status, *fakeBoots, Deps) {
	t.Helper()
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	f := newFakeBoots(t)
	deps := campaignDepsFor(f)
	if reg != nil {
		deps.Registry = reg
	}
	clock := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	deps.Now = func() time.Time { return clock }
	ids := 0
	deps.NewRunID = func() string { ids++; return fmt.Sprintf("20261130T090000-%06d", ids) }
	root := []string{"--root", f.root, "campaign"}
	args := []string{"start", "--boots", "4", "--seed", "7", "--label", "ad", "--target-ci", target, "--budget", budget,
		"--suite", "quick", "--only", "syscall-basic", "--param", "syscall-basic.loops=2000", "--runs", "2", "--warmup", "0"}
	if _, errOut, code := sectax(t, deps, append(root, args...)...); code != 0 {
		t.Fatalf("start: %d %s", code, errOut)
	}
	for i := 0; i < 20; i++ {
		clock = clock.Add(10 * time.Minute)
		_, errOut, code := sectax(t, deps, append(root, "resume")...)
		if code != 0 {
			if strings.Contains(errOut, "is finished") {
				break
			}
			t.Fatalf("resume %d: %d %s", i, code, errOut)
		}
	}
	out, _, code := sectax(t, deps, append(root, "status", "--format", "json")...)
	var st campaign.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("status: %d %s", code, out)
	}
	t.Logf("%d steps: %s", st.Steps, st.Message)
	return st, f, deps
}

// TestCampaignAdaptive: after the planned boots, a campaign with
// --target-ci adds rounds of on and each configuration whose interval
// against on (the boot as the unit) is wider than the target, while a
// round fits in --budget, and its final message says what stopped each.
// The samples
// are scripted (a stand-in syscall-basic whose values are fixed), so the
// intervals, and the boots they call for, are the same on any machine,
// however busy; TestCampaignAdaptiveRealWorkload runs the real workload.
func TestCampaignAdaptive(t *testing.T) {
	for _, tc := range []struct {
		name       string
		target     string
		budget     string
		steps      int
		stoppedBy  string
		afterBoots string
	}{
		// 4+4 boots have an interval, and it is within ±1000 points.
		{"target", "1000", "10h", 8, "stopped by the target (--target-ci 1000)", "after 4 boots"},
		// No interval is ever within ±0.000001 points: after 8 boots (80
		// min of the test's clock, 10 min a boot) one round of 2 boots
		// fits in 105 min, the next would not.
		{"budget", "0.000001", "105m", 10, "stopped by the budget (--budget 1h45m0s, 1:40:00 spent)", "after 5 boots"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scripted := workload.NewRegistry(&fake{id: "syscall-basic", base: map[string]float64{"usecs_per_op": 0.25}})
			st, f, _ := adaptiveCampaign(t, scripted, tc.target, tc.budget)
			if st.State != campaign.Finished || st.Steps != tc.steps || !strings.Contains(st.Message, "adaptive: off against on: ") ||
				!strings.Contains(st.Message, tc.afterBoots+": "+tc.stoppedBy) {
				t.Errorf("state %s, %d steps, message %q; want finished after %d steps, %q", st.State, st.Steps, st.Message, tc.steps, tc.stoppedBy)
			}
			if len(f.requested) != tc.steps {
				t.Errorf("%d boots requested, want %d", len(f.requested), tc.steps)
			}
		})
	}
	f := newFakeBoots(t)
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	_, errOut, code := sectax(t, campaignDepsFor(f), "--root", f.root, "campaign", "start", "--target-ci", "2")
	if code != 2 || !strings.Contains(errOut, "--target-ci needs --budget") {
		t.Errorf("--target-ci without --budget: exit %d %q", code, errOut)
	}
}

// TestCampaignAdaptiveRealWorkload: the same adaptive campaign measuring
// the real syscall-basic (a worker child, tiny loops). How wide its
// intervals are depends on the machine, so it asserts only what does not:
// the campaign finishes with an adaptive verdict, every boot it asked for
// is a stored, valid run of positive samples.
func TestCampaignAdaptiveRealWorkload(t *testing.T) {
	st, f, deps := adaptiveCampaign(t, nil, "0.000001", "105m")
	if st.State != campaign.Finished || !strings.Contains(st.Message, "adaptive: off against on: ") {
		t.Fatalf("state %s, message %q; want finished with an adaptive verdict", st.State, st.Message)
	}
	if len(f.requested) < 8 || len(f.requested) != st.Steps {
		t.Errorf("%d boots requested for %d steps; want the 8 planned and more", len(f.requested), st.Steps)
	}
	out, errOut, code := sectax(t, deps, "export", "ad-on", "ad-off")
	if code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	docs, err := run.Decode("export", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != st.Steps {
		t.Errorf("%d runs stored, want one a boot (%d)", len(docs), st.Steps)
	}
	for _, d := range docs {
		if err := d.Run.Validate(); err != nil {
			t.Errorf("run %s: %v", d.Run.ID, err)
		}
		if len(d.Run.Results) != 1 || d.Run.Results[0].Workload != "syscall-basic" {
			t.Fatalf("run %s: results %+v", d.Run.ID, d.Run.Results)
		}
		for _, m := range d.Run.Results[0].Metrics {
			if len(m.Samples) != 2 {
				t.Errorf("run %s %s: %d samples, want 2", d.Run.ID, m.Name, len(m.Samples))
			}
			for _, v := range m.Samples {
				if !(v > 0) {
					t.Errorf("run %s %s: sample %v, want positive", d.Run.ID, m.Name, v)
				}
			}
		}
	}
}

// conclusionOf is the first paragraph of a comparison's text, every side's
// conclusion, unwrapped.
func conclusionOf(text string) string {
	first, _, _ := strings.Cut(text, "\nsectax compare:")
	return strings.Join(strings.Fields(first), " ")
}
