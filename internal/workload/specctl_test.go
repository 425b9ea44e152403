package workload

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // settings joined by spaces, or "error: substring"
	}{
		{[]string{"ssbd=force"}, "ssbd=force"},
		{[]string{"ib=force,ssbd=on"}, "ssbd=on ib=force"},
		{[]string{"l1d_flush=on", "ib=off"}, "ib=off l1d_flush=on"},
		{[]string{"ssbd=force", "ssbd=force"}, "ssbd=force"},
		{[]string{" ssbd=off , "}, "ssbd=off"},
		{[]string{"ssbd=force", "ssbd=off"}, "error: names ssbd twice"},
		{[]string{"l1d_flush=force"}, "error: l1d_flush takes on, off"},
		{[]string{"stibp=on"}, "error: unknown control \"stibp\" (accepted: ssbd, ib, l1d_flush)"},
		{[]string{"ssbd"}, "error: expected CONTROL=STATE"},
		{[]string{""}, "error: no control given"},
	} {
		got, err := ParseSpecCtl(tc.args)
		if strings.HasPrefix(tc.want, "error: ") {
			var ue *UsageError
			if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), strings.TrimPrefix(tc.want, "error: ")) {
				t.Errorf("ParseSpecCtl(%q) = %v, %v; want a usage error with %q", tc.args, got, err, tc.want)
			}
			continue
		}
		var parts []string
		for _, s := range got {
			parts = append(parts, s.String())
		}
		if err != nil || strings.Join(parts, " ") != tc.want {
			t.Errorf("ParseSpecCtl(%q) = %v, %v; want %s", tc.args, parts, err, tc.want)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"ssbd=force", "ib=force,ssbd=on", "l1d_flush=on", "x", "=", ",,", "ssbd=force,ssbd=off"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSpecCtl([]string{s})
		if err != nil {
			var ue *UsageError
			if !errors.As(err, &ue) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not a one-line usage error: %q", err)
			}
			return
		}
		for _, st := range got {
			c, ok := lookupSpecCtl(st.Control)
			if !ok {
				t.Fatalf("unknown control %q accepted", st.Control)
			}
			if _, ok := c.set[st.Value]; !ok {
				t.Fatalf("bad value %q accepted", st)
			}
		}
	})
}

func intp(v int) *int { return &v }

// TestDecodeOffer reads a table of PR_GET_SPECULATION_CTRL answers as
// arch/x86/kernel/cpu/bugs.c gives them in each mode.
func TestDecodeOffer(t *testing.T) {
	ssb, _ := lookupSpecCtl("ssbd")
	ib, _ := lookupSpecCtl("ib")
	l1d, _ := lookupSpecCtl("l1d_flush")
	for _, tc := range []struct {
		name      string
		c         specCtl
		sc        sysinfo.SpecCtl
		raw       string
		available bool
		kernel    string
		reason    string
	}{
		{"ssb prctl mode", ssb, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_PRCTL | unix.PR_SPEC_ENABLE)},
			"Mitigation: Speculative Store Bypass disabled via prctl", true, "prctl enable", ""},
		{"ssb seccomp-forced task", ssb, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_PRCTL | unix.PR_SPEC_FORCE_DISABLE)},
			"Mitigation: Speculative Store Bypass disabled via prctl and seccomp", false, "prctl force_disable", "already forced mitigated"},
		{"ssb task mitigated by its parent", ssb, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_PRCTL | unix.PR_SPEC_DISABLE)},
			"Mitigation: Speculative Store Bypass disabled via prctl", true, "prctl disable", ""},
		{"ssb mode none", ssb, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_ENABLE)}, "Vulnerable", false, "enable",
			"PR_GET_SPECULATION_CTRL: enable, not prctl: SSBD is off for every task (spec_store_bypass: Vulnerable); a task may choose only after booting with spec_store_bypass_disable=prctl"},
		{"ssb always on", ssb, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_DISABLE)}, "Mitigation: Speculative Store Bypass disabled", false, "disable",
			"SSBD is on for every task (spec_store_bypass: Mitigation: Speculative Store Bypass disabled)"},
		{"ssb not affected", ssb, sysinfo.SpecCtl{Prctl: intp(0)}, "Not affected", false, "not_affected",
			"PR_GET_SPECULATION_CTRL: not affected: the CPU does not need it (spec_store_bypass: Not affected)"},
		{"ib conditional", ib, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_PRCTL | unix.PR_SPEC_ENABLE)},
			"Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; STIBP: conditional", true, "prctl enable", ""},
		{"ib strict", ib, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_DISABLE)}, "Mitigation: Retpolines; IBPB: always-on; STIBP: forced", false, "disable",
			"user-to-user STIBP/IBPB is on for every task"},
		{"ib none", ib, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_ENABLE)}, "Mitigation: Retpolines; STIBP: disabled", false, "enable",
			"spectre_v2_user=prctl"},
		{"l1d not enabled at boot", l1d, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_FORCE_DISABLE)}, "Not affected", false, "force_disable",
			"the flush is not enabled at boot (l1tf: Not affected); a task may choose only after booting with l1d_flush=on"},
		{"l1d on", l1d, sysinfo.SpecCtl{Prctl: intp(unix.PR_SPEC_PRCTL | unix.PR_SPEC_DISABLE)}, "Mitigation: PTE Inversion", true, "prctl disable", ""},
		{"l1d old kernel", l1d, sysinfo.SpecCtl{PrctlError: "ENODEV"}, "", false, "ENODEV", "Linux 5.15 or later"},
		{"arm64 without control", ib, sysinfo.SpecCtl{PrctlError: "EINVAL"}, "", false, "EINVAL", "no such control on this architecture"},
		{"--root: not asked", ssb, sysinfo.SpecCtl{}, "Vulnerable", false, "unknown", "running kernel only"},
	} {
		o := decodeOffer(tc.c, tc.sc, tc.raw, tc.raw != "")
		if o.Available != tc.available || o.Kernel != tc.kernel || !strings.Contains(o.Reason, tc.reason) || (tc.available && o.Reason != "") {
			t.Errorf("%s: got %+v; want available=%v kernel=%q reason containing %q", tc.name, o, tc.available, tc.kernel, tc.reason)
		}
	}
}

func TestCheckSpec(t *testing.T) {
	offers := []SpecCtlOffer{{Control: "ssbd", Available: true}, {Control: "ib", Reason: "PR_GET_SPECULATION_CTRL: enable, not prctl"}}
	if err := CheckSpecCtl([]SpecCtlSetting{{"ssbd", "force"}}, offers); err != nil {
		t.Fatal(err)
	}
	err := CheckSpecCtl([]SpecCtlSetting{{"ssbd", "force"}, {"ib", "force"}}, offers)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--spec ib=force: this kernel does not offer ib per task: PR_GET_SPECULATION_CTRL: enable") {
		t.Fatalf("err = %v", err)
	}
}

// fakeSpecSys is a kernel whose /proc is testdata/specproc and whose
// prctl records the calls.
func fakeSpecSys(pid, tid int, getVal int) (*specCtlSys, *[]string) {
	var calls []string
	return &specCtlSys{
		set: func(which, value int) error {
			calls = append(calls, strconv.Itoa(which)+":"+strconv.Itoa(value))
			return nil
		},
		get:    func(int) (int, error) { return getVal, nil },
		proc:   "testdata/specproc",
		getpid: func() int { return pid },
		gettid: func() int { return tid },
	}, &calls
}

func TestSpecSessionFakeProc(t *testing.T) {
	settings := []SpecCtlSetting{{"ssbd", "force"}, {"ib", "force"}}
	kernel := map[string]string{"ssbd": "prctl enable", "ib": "prctl enable"}

	sys, calls := fakeSpecSys(100, 101, 0)
	s := newSpecCtlSession(settings, kernel, sys)
	s.applyThread("runner-thread")
	s.checkWorkers([]int{100})
	if err := s.err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:8", "1:8"}; !reflect.DeepEqual(*calls, want) {
		t.Errorf("prctl calls = %v, want %v (PR_SET_SPECULATION_CTRL which:PR_SPEC_FORCE_DISABLE)", *calls, want)
	}
	got := s.record()
	want := []run.SpecControl{
		{Control: "ssbd", Requested: "force", Kernel: "prctl enable", Expected: "thread force mitigated", Verified: []run.SpecTasks{
			{Role: "runner-thread", Source: "/proc/PID/task/TID/status", State: "thread force mitigated", Processes: 1, Tasks: 1},
			{Role: "worker", Source: "/proc/PID/task/TID/status", State: "thread force mitigated", Processes: 1, Tasks: 2}}},
		{Control: "ib", Requested: "force", Kernel: "prctl enable", Expected: "conditional force disabled", Verified: []run.SpecTasks{
			{Role: "runner-thread", Source: "/proc/PID/task/TID/status", State: "conditional force disabled", Processes: 1, Tasks: 1},
			{Role: "worker", Source: "/proc/PID/task/TID/status", State: "conditional force disabled", Processes: 1, Tasks: 2}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("record:\n got %+v\nwant %+v", got, want)
	}

	// A worker that does not show the state fails the repetition.
	s = newSpecCtlSession(settings, kernel, sys)
	s.checkWorkers([]int{100, 200})
	if err := s.err(); err == nil || !strings.Contains(err.Error(), `--spec ssbd=force is not in effect in task 200 of worker 200: the kernel shows "thread vulnerable", not "thread force mitigated"`) {
		t.Errorf("err = %v", err)
	}
	// So does a kernel without the status line, and a worker that is gone.
	for pid, want := range map[int]string{300: "has no Speculation_Store_Bypass line", 400: "cannot list the tasks of worker 400"} {
		s = newSpecCtlSession(settings, kernel, sys)
		s.checkWorkers([]int{pid})
		if err := s.err(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("worker %d: err = %v, want %q", pid, err, want)
		}
	}
	// The kernel's refusal is reported with its errno.
	refusing := *sys
	refusing.set = func(int, int) error { return unix.ENXIO }
	s = newSpecCtlSession(settings, kernel, &refusing)
	s.applyThread("thread")
	if err := s.err(); err == nil || !strings.Contains(err.Error(), "the kernel refused prctl(PR_SET_SPECULATION_CTRL) in task 101: ENXIO") {
		t.Errorf("err = %v", err)
	}
}

// TestSpecSessionL1D checks the control without a status line through
// PR_GET_SPECULATION_CTRL in the task itself.
func TestSpecSessionL1D(t *testing.T) {
	for _, tc := range []struct {
		get  int
		fail bool
	}{{unix.PR_SPEC_PRCTL | unix.PR_SPEC_ENABLE, false}, {unix.PR_SPEC_PRCTL | unix.PR_SPEC_DISABLE, true}} {
		sys, _ := fakeSpecSys(100, 100, tc.get)
		s := newSpecCtlSession([]SpecCtlSetting{{"l1d_flush", "on"}}, nil, sys)
		s.applyThread("thread")
		s.checkWorkers([]int{100}) // no status line: nothing to check there
		if err := s.err(); (err != nil) != tc.fail {
			t.Errorf("get %#x: err = %v", tc.get, err)
		}
		r := s.record()[0]
		if len(r.Verified) != 1 || r.Verified[0].Source != "PR_GET_SPECULATION_CTRL" || r.Verified[0].Role != "thread" {
			t.Errorf("get %#x: verified %+v", tc.get, r.Verified)
		}
	}
}

// TestSpecHooksReachEveryTask runs real workloads under a control whose
// expected state is what this kernel shows already (the prctl is a no-op
// here), so that the hooks are checked on real threads and worker
// processes: the runner thread, every worker thread and every task of
// every worker process is read from the real /proc.
func TestSpecHooksReachEveryTask(t *testing.T) {
	b, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		t.Skip(err)
	}
	state, ok := sysinfo.StatusValue(string(b), "Speculation_Store_Bypass")
	if !ok {
		t.Skip("no Speculation_Store_Bypass line in /proc/thread-self/status")
	}
	saved := specCtls
	defer func() { specCtls = saved }()
	specCtls = append(append([]specCtl(nil), saved...), specCtl{name: "probe", status: "Speculation_Store_Bypass",
		set: map[string]int{"off": 0}, expect: map[string]string{"off": state}})
	sys := realSpecCtlSys
	sys.set = func(int, int) error { return nil }
	settings := []SpecCtlSetting{{"probe", "off"}}

	for _, tc := range []struct {
		w                          Workload
		params                     map[string]string
		threads, workers, minTasks int
	}{
		{SyscallBasic{}, map[string]string{"loops": "1000"}, 0, 0, 0},
		{SchedPipe{}, map[string]string{"loops": "100", "mode": "process", "spawn": "fork"}, 0, 1, 1},
		{SchedPipe{}, map[string]string{"loops": "100", "mode": "process", "spawn": "exec"}, 0, 1, 2},
		{SchedPipe{}, map[string]string{"loops": "100", "mode": "thread"}, 1, 0, 0},
		{SchedMessaging{}, map[string]string{"groups": "1", "loops": "2", "mode": "thread"}, 40, 0, 0},
		{SchedMessaging{}, map[string]string{"groups": "1", "loops": "2", "mode": "process", "spawn": "fork"}, 0, 40, 40},
	} {
		name := tc.w.Info().ID + " " + tc.params["mode"] + " " + tc.params["spawn"]
		w := specCtlWorkload{Workload: tc.w, settings: settings, kernel: map[string]string{"probe": "test"}, sys: &sys}
		s, err := w.Run(context.Background(), testEnv(t), moreParams(t, tc.w, tc.params))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.SpecControls) != 1 {
			t.Fatalf("%s: spec controls %+v", name, s.SpecControls)
		}
		byRole := map[string]run.SpecTasks{}
		for _, v := range s.SpecControls[0].Verified {
			if v.State != state {
				t.Errorf("%s: %+v shows %q, want %q", name, v, v.State, state)
			}
			byRole[v.Role] = v
		}
		if r := byRole["runner-thread"]; r.Tasks != 1 {
			t.Errorf("%s: runner thread %+v", name, r)
		}
		if r := byRole["thread"]; r.Tasks != tc.threads {
			t.Errorf("%s: worker threads verified %d, want %d", name, r.Tasks, tc.threads)
		}
		if r := byRole["worker"]; r.Processes != tc.workers || r.Tasks < tc.minTasks {
			t.Errorf("%s: workers verified %+v, want %d processes, at least %d tasks", name, r, tc.workers, tc.minTasks)
		}
	}
}

// TestSpecRealKernel asks the running kernel. Where a control is not
// offered, the kernel itself must refuse to set it, and the reason must
// quote its vulnerability file. Where one is offered, a forced control
// must show in /proc in the worker process of sched-pipe.
func TestSpecRealKernel(t *testing.T) {
	snap, err := sysinfo.Collect("/")
	if err != nil {
		t.Skip(err)
	}
	offers := SpecCtlOffers(snap)
	if len(offers) != 3 {
		t.Fatalf("offers %+v", offers)
	}
	for _, o := range offers {
		c, _ := lookupSpecCtl(o.Control)
		if !o.Available {
			if !strings.Contains(o.Reason, "PR_GET_SPECULATION_CTRL") {
				t.Errorf("%s: the reason does not come from the kernel: %q", o.Control, o.Reason)
			}
			for _, v := range snap.Vulnerabilities {
				if v.Name == c.vuln && !strings.Contains(o.Reason, v.Raw) {
					t.Errorf("%s: reason %q does not quote %s: %q", o.Control, o.Reason, v.Name, v.Raw)
				}
			}
			// A throwaway locked thread: whatever happens, it exits.
			done := make(chan error)
			go func() {
				lockThreadForever()
				done <- realSpecCtlSys.set(c.which, c.set[c.values()[0]])
			}()
			if err := <-done; err == nil {
				t.Errorf("%s: the kernel accepted %s=%s although PR_GET said %s", o.Control, o.Control, c.values()[0], o.Kernel)
			}
			continue
		}
		if c.status == "" {
			continue // l1d_flush: no status line, and SIGBUS on SMT cores
		}
		w := WithSpecCtl(SchedPipe{}, []SpecCtlSetting{{o.Control, "force"}}, offers)
		s, err := w.Run(context.Background(), testEnv(t), moreParams(t, SchedPipe{}, map[string]string{"loops": "100", "mode": "process"}))
		if err != nil {
			t.Fatalf("%s=force: %v", o.Control, err)
		}
		found := false
		for _, v := range s.SpecControls[0].Verified {
			if v.Role == "worker" && v.State == c.expect["force"] && v.Processes == 1 {
				found = true
			}
		}
		if !found {
			t.Errorf("%s=force: the worker does not show %q: %+v", o.Control, c.expect["force"], s.SpecControls)
		}
	}
}
