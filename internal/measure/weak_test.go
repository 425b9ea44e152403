package measure

import (
	"context"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// TestRunRecordsLoad: the load read at the start and at the end is in
// the run document, the start's before the sink is told the run began;
// a reader that reads nothing records nothing.
func TestRunRecordsLoad(t *testing.T) {
	var calls []string
	items := []plan.Item{{Workload: &scripted{id: "a", values: []float64{1, 2, 3}, calls: &calls}, Repetitions: 2}}
	n := 0.0
	read := func() *sysinfo.Load {
		n++
		v := n
		return &sysinfo.Load{Load1: &v}
	}
	r := &run.Run{Results: NewResults(items)}
	if err := measureItems(context.Background(), r, items, options{Load: read}); err != nil {
		t.Fatal(err)
	}
	if r.Load == nil || r.Load.Start == nil || r.Load.End == nil || *r.Load.Start.Load1 != 1 || *r.Load.End.Load1 != 2 {
		t.Fatalf("load %+v, want the start's reading 1 and the end's 2", r.Load)
	}
	r = &run.Run{Results: NewResults(items)}
	if err := measureItems(context.Background(), r, items, options{Load: func() *sysinfo.Load { return nil }}); err != nil {
		t.Fatal(err)
	}
	if r.Load != nil {
		t.Errorf("nothing read, but recorded %+v", r.Load)
	}
}

// TestLoadReaderBusyTree: LoadReader of the fake busy tree reads its
// load average; of a root without the files, nothing.
func TestLoadReaderBusyTree(t *testing.T) {
	if l := LoadReader("../sysinfo/testdata/load/busy")(); l == nil || l.Load1 == nil || *l.Load1 != 110.52 {
		t.Errorf("busy tree: %+v", l)
	}
	if l := LoadReader(t.TempDir())(); l != nil {
		t.Errorf("empty root: %+v", l)
	}
}

// TestWeak: each cause of weak figures is said, and a quiet run with
// tight intervals says nothing.
func TestWeak(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tight := []float64{10, 10.1, 9.9, 10, 10.05, 9.95, 10, 10.02, 9.98, 10}
	wide := []float64{5, 15, 8, 12, 20, 3, 10, 30, 1, 10}
	mk := func(load *run.Load, samples []float64) *run.Run {
		return &run.Run{Env: &sysinfo.Snapshot{CPU: sysinfo.CPU{Online: 2}}, Load: load, Results: []run.Result{
			{Workload: "syscall-basic", Metrics: []run.Metric{{Name: "usecs_per_op", Samples: samples}}},
			{Workload: "ctl-user", Metrics: []run.Metric{{Name: "usecs_per_op", Samples: tight}}}}}
	}
	quiet := &run.Load{Start: &sysinfo.Load{Load1: f(0.2), CPUSeconds: f(1000), StealSeconds: f(1)},
		End: &sysinfo.Load{Load1: f(1.5), CPUSeconds: f(1100), StealSeconds: f(1.5)}}
	if w := Weak(mk(quiet, tight)); len(w) != 0 {
		t.Errorf("quiet run: %q", w)
	}
	if w := Weak(mk(nil, tight)); len(w) != 0 {
		t.Errorf("a run without a load record: %q", w)
	}
	busy := &run.Load{Start: &sysinfo.Load{Load1: f(110.52), CPUSeconds: f(1000), StealSeconds: f(1), OtherSectax: 2},
		End: &sysinfo.Load{Load1: f(100), CPUSeconds: f(1100), StealSeconds: f(11)}}
	w := strings.Join(Weak(mk(busy, wide)), "\n")
	for _, want := range []string{
		"the machine was busy when the run started (load average 110.52 on 2 CPUs)",
		"the hypervisor took 10.0% of the CPU time while the run measured (steal)",
		"2 other sectax processes measured at the same time",
		"intervals too wide to show a tax of a few percent (95% interval of the median beyond ±10%): syscall-basic ±",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	if strings.Contains(w, "ctl-user") {
		t.Errorf("a tight workload named as wide:\n%s", w)
	}
}
