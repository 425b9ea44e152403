package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/measure"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/ui"
)

// fixtures are the two boots of the fake machine: a WSL 2 guest on an
// Intel CPU with the default mitigations and with mitigations=off.
var (
	fixtureOn  = filepath.Join("..", "sysinfo", "testdata", "wsl2-intel-on")
	fixtureOff = filepath.Join("..", "sysinfo", "testdata", "wsl2-intel-off")
)

const vulnDir = "sys/devices/system/cpu/vulnerabilities"

// fault is how the fake machine misbehaves on a boot.
type fault int

const (
	obey         fault = iota // boots with the requested command line
	defaultBoot               // ignores it: boots the default command line
	noReboot                  // does not reboot at all
	inconsistent              // takes the command line, keeps the mitigations
	failRequest               // the reboot cannot be requested
)

// machine is a fake machine: a root tree rewritten on every boot, with the
// calls made to it recorded.
type machine struct {
	t     *testing.T
	root  string
	base  string // the default command line
	boots int
	// requests counts the boots requested.
	requests int
	calls    []string
	// faults says how each requested boot goes (obey when absent).
	faults map[int]fault
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	m := &machine{t: t, root: t.TempDir(), faults: map[int]fault{}}
	testutil.CopyTree(t, fixtureOn, m.root)
	b, err := os.ReadFile(filepath.Join(m.root, "proc/cmdline"))
	if err != nil {
		t.Fatal(err)
	}
	m.base = strings.TrimSpace(string(b))
	m.write("proc/sys/kernel/random/boot_id", "boot-0")
	m.write("proc/loadavg", "0.10 0.20 0.30 1/100 4242")
	return m
}

func (m *machine) write(rel, s string) {
	m.t.Helper()
	p := filepath.Join(m.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s+"\n"), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// bootInto makes the root look like a boot with cmdline, its
// vulnerability files those of off (or on).
func (m *machine) bootInto(cmdline string, off bool) {
	m.boots++
	m.write("proc/cmdline", cmdline)
	m.write("proc/sys/kernel/random/boot_id", fmt.Sprintf("boot-%d", m.boots))
	src := fixtureOn
	if off {
		src = fixtureOff
	}
	os.RemoveAll(filepath.Join(m.root, vulnDir))
	testutil.CopyTree(m.t, filepath.Join(src, vulnDir), filepath.Join(m.root, vulnDir))
}

func (m *machine) Name() string                             { return "fake" }
func (m *machine) Check(context.Context, BootRequest) error { return nil }

func (m *machine) Boot(_ context.Context, req BootRequest, _ func(Change) error) error {
	m.requests++
	n := m.requests
	m.calls = append(m.calls, fmt.Sprintf("boot step=%d config=%s cmdline=%q", req.Step, req.Config.Name, req.Cmdline))
	off := strings.Contains(" "+req.Cmdline+" ", " mitigations=off ")
	switch m.faults[n] {
	case obey:
		m.bootInto(req.Cmdline, off)
	case defaultBoot:
		m.bootInto(m.base, false)
	case inconsistent:
		m.bootInto(req.Cmdline, false)
	case failRequest:
		return fmt.Errorf("the fake machine refuses to reboot")
	}
	return nil
}

// said is what the engine said since forget.
func (r *rig) said() []string { return r.out.Notes()[r.from:] }

// forget starts what said returns afresh.
func (r *rig) forget() { r.from = len(r.out.Notes()) }

// rig is an engine on a fake machine with a real store.
type rig struct {
	t      *testing.T
	m      *machine
	dbPath string
	ref    store.Ref // dbPath parsed
	db     *store.DB
	e      *Engine
	// out keeps what the engine said; said is what since forget.
	out  *ui.Recorder
	from int
	// measureErr, when set, makes the next measurement fail after
	// storing a run in the given state.
	measureFail *run.Status
	measured    []Measurement
	// samples, when set, are a measurement's samples; bootTime and
	// repTime how long the boot before it and each sample take on the
	// clock.
	samples           func(m Measurement) []float64
	bootTime, repTime time.Duration
	clock             time.Time
	ids               int
	// wslconfig is the .wslconfig the campaign's options name.
	wslconfig string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	return newRigOn(t, filepath.Join(t.TempDir(), "sectax.db"))
}

// newRigOn is a rig whose store is at dbPath (a file or a postgres:// URL).
func newRigOn(t *testing.T, dbPath string) *rig {
	t.Helper()
	r := &rig{t: t, m: newMachine(t), dbPath: dbPath, ref: storetest.Ref(t, dbPath),
		clock: time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)}
	r.reopen()
	t.Cleanup(func() { r.db.Close() })
	return r
}

// reopen drops the engine and its database handle, as a crash or a reboot
// would, and builds new ones on the same store.
func (r *rig) reopen() {
	r.t.Helper()
	if r.db != nil {
		r.db.Close()
	}
	db, err := r.ref.Open(context.Background(), store.Options{Create: true})
	if err != nil {
		r.t.Fatal(err)
	}
	r.db = db
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		r.t.Fatal(err)
	}
	if r.out == nil {
		r.out = &ui.Recorder{}
	}
	r.e = &Engine{
		DB: db, KB: kb, Mech: r.m, Store: r.ref,
		Host: &Host{Root: r.m.root, Exec: r.exec},
		Now:  func() time.Time { r.clock = r.clock.Add(time.Second); return r.clock },
		NewID: func() string {
			r.ids++
			return fmt.Sprintf("20261130T230000-c0ffe%d", r.ids)
		},
		Out:  measure.WordsOnly{Printer: r.out},
		Runs: Runs{measure: r.measure},
	}
}

func (r *rig) exec(_ context.Context, name string, args ...string) ([]byte, error) {
	r.m.calls = append(r.m.calls, strings.Join(append([]string{name}, args...), " "))
	if name == "systemctl" && slices.Equal(args, []string{"is-system-running", "--wait"}) {
		return []byte("running\n"), nil
	}
	return nil, fmt.Errorf("unexpected %s", name)
}

// measure stores a tiny run the way the CLI's runner would: begun, then
// finished, with the snapshot of the boot it measured.
func (r *rig) measure(ctx context.Context, m Measurement) error {
	r.measured = append(r.measured, m)
	snap, err := sysinfo.CollectContext(ctx, r.m.root)
	if err != nil {
		return err
	}
	samples := []float64{0.1, 0.2}
	if r.samples != nil {
		samples = r.samples(m)
	}
	r.clock = r.clock.Add(r.bootTime)
	run1 := &run.Run{Schema: run.Schema, ID: m.RunID, Label: m.Label, Started: r.clock, Status: run.StatusRunning,
		Suite: m.Options.Suite, Engine: "native", Env: snap, Config: m.Config, Campaign: m.Campaign, Repetitions: len(samples),
		Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": int64(10)},
			Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: samples}}}}}
	r.clock = r.clock.Add(time.Duration(len(samples)) * r.repTime)
	if err := r.db.Begin(run1); err != nil {
		return err
	}
	if r.measureFail != nil {
		st := *r.measureFail
		r.measureFail = nil
		if st == run.StatusRunning {
			return fmt.Errorf("crashed while measuring")
		}
		run1.Status = st
		run1.Finished = r.clock
		if err := r.db.Finish(run1); err != nil {
			return err
		}
		if st == run.StatusComplete {
			return fmt.Errorf("crashed after the run was stored")
		}
		return fmt.Errorf("the run ended %s", st)
	}
	run1.Status, run1.Finished = run.StatusComplete, r.clock
	return r.db.Finish(run1)
}

// order is the plan start(boots) makes (seed 7).
func (r *rig) order(boots int) []Step {
	r.t.Helper()
	steps, err := Schedule([]bootconfig.Config{bootconfig.On, bootconfig.Off}, boots, 7)
	if err != nil {
		r.t.Fatal(err)
	}
	return steps
}

func (r *rig) start(boots int) *store.Campaign {
	r.t.Helper()
	c, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: boots,
		Seed: 7, Label: "cmp", Options: Options{Request: plan.Request{Suite: "quick"}, Exe: "/usr/local/bin/sectax", DB: r.dbPath, WSLConfig: r.wslconfig}})
	if err != nil {
		r.t.Fatalf("start: %v", err)
	}
	return c
}

func (r *rig) load() *store.Campaign {
	r.t.Helper()
	c, err := r.db.FindCampaign(context.Background(), "")
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}
