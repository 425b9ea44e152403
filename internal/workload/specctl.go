package workload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// Per-task speculation controls: prctl(PR_SET_SPECULATION_CTRL) switches a
// mitigation for the calling task only (Speculative Store Bypass Disable,
// indirect-branch speculation: STIBP and IBPB on context switch, L1D flush
// on context switch), when the kernel's mode lets tasks choose. The state
// is per task and inherited by fork, clone and execve, so a control set in
// the thread that runs a workload reaches every worker process it forks or
// executes and every command it spawns. Worker threads are not clones of
// that thread (Go starts threads from a template thread), so each sets it
// itself (Env.SpecCtlThread). Every task is then checked in /proc before the
// timed window.

// SpecCtlSetting is one requested control: Control=Value ("ssbd=force").
type SpecCtlSetting struct {
	Control string
	Value   string
}

func (s SpecCtlSetting) String() string { return s.Control + "=" + s.Value }

// specCtl is what sectax knows of one control.
type specCtl struct {
	name  string
	which int
	// status is the /proc/PID/status key; "" when the kernel prints none.
	status string
	// vuln is the vulnerability file that states the kernel's mode.
	vuln string
	// set maps a requested state to the PR_SET_SPECULATION_CTRL value.
	set map[string]int
	// expect maps a requested state to what proves it: the status text,
	// or the PR_GET bits (sysinfo.SpecBits) when there is no status line.
	expect map[string]string
	// boot is the boot parameter that offers the control per task.
	boot string
	// mitigation names what the control switches.
	mitigation string
}

// specCtls lists the controls in the order they are applied and shown.
var specCtls = []specCtl{
	{name: "ssbd", which: unix.PR_SPEC_STORE_BYPASS, status: "Speculation_Store_Bypass", vuln: "spec_store_bypass",
		set:    map[string]int{"force": unix.PR_SPEC_FORCE_DISABLE, "on": unix.PR_SPEC_DISABLE, "off": unix.PR_SPEC_ENABLE},
		expect: map[string]string{"force": "thread force mitigated", "on": "thread mitigated", "off": "thread vulnerable"},
		boot:   "spec_store_bypass_disable=prctl", mitigation: "SSBD"},
	{name: "ib", which: unix.PR_SPEC_INDIRECT_BRANCH, status: "SpeculationIndirectBranch", vuln: "spectre_v2",
		set:    map[string]int{"force": unix.PR_SPEC_FORCE_DISABLE, "on": unix.PR_SPEC_DISABLE, "off": unix.PR_SPEC_ENABLE},
		expect: map[string]string{"force": "conditional force disabled", "on": "conditional disabled", "off": "conditional enabled"},
		boot:   "spectre_v2_user=prctl", mitigation: "user-to-user STIBP/IBPB"},
	{name: "l1d_flush", which: unix.PR_SPEC_L1D_FLUSH, vuln: "l1tf",
		set:    map[string]int{"on": unix.PR_SPEC_ENABLE, "off": unix.PR_SPEC_DISABLE},
		expect: map[string]string{"on": "prctl enable", "off": "prctl disable"},
		boot:   "l1d_flush=on", mitigation: "the L1D flush"},
}

// SpecCtlNames lists the controls sectax can apply, in order.
func SpecCtlNames() []string {
	out := make([]string, len(specCtls))
	for i, c := range specCtls {
		out[i] = c.name
	}
	return out
}

func lookupSpecCtl(name string) (specCtl, bool) {
	for _, c := range specCtls {
		if c.name == name {
			return c, true
		}
	}
	return specCtl{}, false
}

// specValues lists a control's accepted states, strongest first.
func (c specCtl) values() []string {
	var out []string
	for _, v := range []string{"force", "on", "off"} {
		if _, ok := c.set[v]; ok {
			out = append(out, v)
		}
	}
	return out
}

// ParseSpecCtl reads --spec arguments: CONTROL=STATE, comma-separated and
// repeatable. The result is in control order; naming a control twice is a
// usage error.
func ParseSpecCtl(args []string) ([]SpecCtlSetting, error) {
	seen := map[string]string{}
	for _, arg := range args {
		for _, item := range strings.Split(arg, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, value, ok := strings.Cut(item, "=")
			if !ok {
				return nil, &UsageError{Msg: fmt.Sprintf("--spec %q: expected CONTROL=STATE, e.g. ssbd=force", item)}
			}
			c, ok := lookupSpecCtl(name)
			if !ok {
				return nil, &UsageError{Msg: fmt.Sprintf("--spec %q: unknown control %q (accepted: %s)", item, name, strings.Join(SpecCtlNames(), ", "))}
			}
			if _, ok := c.set[value]; !ok {
				return nil, &UsageError{Msg: fmt.Sprintf("--spec %q: %s takes %s", item, name, strings.Join(c.values(), ", "))}
			}
			if prev, dup := seen[name]; dup && prev != value {
				return nil, &UsageError{Msg: fmt.Sprintf("--spec names %s twice (%s and %s): give it once", name, prev, value)}
			}
			seen[name] = value
		}
	}
	var out []SpecCtlSetting
	for _, c := range specCtls {
		if v, ok := seen[c.name]; ok {
			out = append(out, SpecCtlSetting{c.name, v})
		}
	}
	if len(out) == 0 {
		return nil, &UsageError{Msg: "--spec: no control given (e.g. ssbd=force, ib=force, l1d_flush=on)"}
	}
	return out, nil
}

// SpecCtlOffer says whether the running kernel lets a task switch a control,
// from its PR_GET_SPECULATION_CTRL answer and vulnerability file.
type SpecCtlOffer struct {
	Control   string `json:"control"`
	Available bool   `json:"available"`
	// Kernel is the PR_GET_SPECULATION_CTRL answer: its bits ("prctl
	// enable"), or the error ("EINVAL"), or "unknown".
	Kernel string `json:"kernel"`
	// Reason says, in the kernel's words, why the control is not offered.
	Reason string `json:"reason,omitempty"`
}

// SpecCtlOffers reads, from an environment snapshot, which controls this
// kernel offers per task.
func SpecCtlOffers(s *sysinfo.Snapshot) []SpecCtlOffer {
	out := make([]SpecCtlOffer, 0, len(specCtls))
	for _, c := range specCtls {
		var sc sysinfo.SpecCtl
		switch c.which {
		case unix.PR_SPEC_STORE_BYPASS:
			sc = s.Speculation.StoreBypass
		case unix.PR_SPEC_INDIRECT_BRANCH:
			sc = s.Speculation.IndirectBranch
		case unix.PR_SPEC_L1D_FLUSH:
			sc = s.Speculation.L1DFlush
		}
		raw, found := "", false
		for _, v := range s.Vulnerabilities {
			if v.Name == c.vuln {
				raw, found = v.Raw, true
			}
		}
		out = append(out, decodeOffer(c, sc, raw, found))
	}
	return out
}

// decodeOffer turns one PR_GET_SPECULATION_CTRL answer into an offer
// (Documentation/userspace-api/spec_ctrl.rst; arch/x86/kernel/cpu/bugs.c
// ssb_prctl_get, ib_prctl_get, l1d_flush_prctl_get).
func decodeOffer(c specCtl, sc sysinfo.SpecCtl, vulnRaw string, vulnFound bool) SpecCtlOffer {
	o := SpecCtlOffer{Control: c.name, Kernel: "unknown"}
	file := "no " + c.vuln + " vulnerability file"
	if vulnFound {
		file = c.vuln + ": " + vulnRaw
	}
	switch {
	case sc.PrctlError != "":
		o.Kernel = sc.PrctlError
		switch sc.PrctlError {
		case "EINVAL":
			o.Reason = "PR_GET_SPECULATION_CTRL: EINVAL: the kernel has no such control on this architecture"
		case "ENODEV":
			o.Reason = "PR_GET_SPECULATION_CTRL: ENODEV: this kernel does not know the control (l1d_flush needs Linux 5.15 or later)"
		default:
			o.Reason = "PR_GET_SPECULATION_CTRL failed: " + sc.PrctlError
		}
	case sc.Prctl == nil:
		o.Reason = "the kernel's mode is unknown: PR_GET_SPECULATION_CTRL is asked of the running kernel only (not with --root)"
	default:
		v := *sc.Prctl
		o.Kernel = strings.Join(sysinfo.SpecBits(v), " ")
		switch {
		case v == 0:
			o.Reason = fmt.Sprintf("PR_GET_SPECULATION_CTRL: not affected: the CPU does not need it (%s)", file)
		case v&unix.PR_SPEC_PRCTL != 0 && v&unix.PR_SPEC_FORCE_DISABLE != 0:
			o.Reason = fmt.Sprintf("PR_GET_SPECULATION_CTRL: %s: sectax itself is already forced mitigated (by seccomp in the kernel's seccomp mode, or by its parent) and cannot switch back; run it outside that sandbox (%s)", o.Kernel, file)
		case v&unix.PR_SPEC_PRCTL != 0:
			o.Available = true
		default:
			what := "the kernel decides for every task"
			switch {
			case c.which == unix.PR_SPEC_L1D_FLUSH:
				what = "the flush is not enabled at boot"
			case v&unix.PR_SPEC_ENABLE != 0:
				what = c.mitigation + " is off for every task"
			case v&(unix.PR_SPEC_DISABLE|unix.PR_SPEC_FORCE_DISABLE) != 0:
				what = c.mitigation + " is on for every task"
			}
			o.Reason = fmt.Sprintf("PR_GET_SPECULATION_CTRL: %s, not prctl: %s (%s); a task may choose only after booting with %s",
				o.Kernel, what, file, c.boot)
		}
	}
	return o
}

// CheckSpecCtl refuses settings the kernel does not offer (a usage error: exit
// status 2), naming the kernel's reason.
func CheckSpecCtl(settings []SpecCtlSetting, offers []SpecCtlOffer) error {
	for _, s := range settings {
		for _, o := range offers {
			if o.Control == s.Control && !o.Available {
				return &UsageError{Msg: fmt.Sprintf("--spec %s: this kernel does not offer %s per task: %s", s, s.Control, o.Reason)}
			}
		}
	}
	return nil
}

// specCtlSys is how the controls reach the kernel: the real prctl and /proc,
// or fakes in tests.
type specCtlSys struct {
	set    func(which, value int) error
	get    func(which int) (int, error)
	proc   string
	getpid func() int
	gettid func() int
}

var realSpecCtlSys = specCtlSys{
	set: func(which, value int) error {
		return unix.Prctl(unix.PR_SET_SPECULATION_CTRL, uintptr(which), uintptr(value), 0, 0)
	},
	get:    sysinfo.PrctlSpecCtl,
	proc:   "/proc",
	getpid: unix.Getpid,
	gettid: unix.Gettid,
}

// specCtlSession applies the settings of one repetition and collects what
// was verified. Its methods are safe for concurrent use.
type specCtlSession struct {
	settings []SpecCtlSetting
	kernel   map[string]string
	sys      *specCtlSys

	mu      sync.Mutex
	rec     []run.SpecControl
	pids    []map[string]map[int]bool // per setting, per group key: the processes seen
	failure error
}

func newSpecCtlSession(settings []SpecCtlSetting, kernel map[string]string, sys *specCtlSys) *specCtlSession {
	s := &specCtlSession{settings: settings, kernel: kernel, sys: sys}
	for _, st := range settings {
		c, _ := lookupSpecCtl(st.Control)
		s.rec = append(s.rec, run.SpecControl{Control: st.Control, Requested: st.Value,
			Kernel: kernel[st.Control], Expected: c.expect[st.Value], Verified: []run.SpecTasks{}})
		s.pids = append(s.pids, map[string]map[int]bool{})
	}
	return s
}

func (s *specCtlSession) fail(err error) {
	s.mu.Lock()
	if s.failure == nil {
		s.failure = err
	}
	s.mu.Unlock()
}

func (s *specCtlSession) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failure
}

// note records one verified task of a setting.
func (s *specCtlSession) note(i int, role, source, state string, pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := role + "\x00" + source + "\x00" + state
	r := &s.rec[i]
	j := slices.IndexFunc(r.Verified, func(t run.SpecTasks) bool {
		return t.Role == role && t.Source == source && t.State == state
	})
	if j < 0 {
		r.Verified = append(r.Verified, run.SpecTasks{Role: role, Source: source, State: state})
		j = len(r.Verified) - 1
		s.pids[i][key] = map[int]bool{}
	}
	r.Verified[j].Tasks++
	if !s.pids[i][key][pid] {
		s.pids[i][key][pid] = true
		r.Verified[j].Processes++
	}
}

// record returns what was verified, groups in a stable order.
func (s *specCtlSession) record() []run.SpecControl {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]run.SpecControl, len(s.rec))
	for i, r := range s.rec {
		r.Verified = slices.Clone(r.Verified)
		sort.SliceStable(r.Verified, func(a, b int) bool { return roleRank(r.Verified[a].Role) < roleRank(r.Verified[b].Role) })
		out[i] = r
	}
	return out
}

func roleRank(role string) int {
	return slices.Index([]string{"runner-thread", "thread", "worker"}, role)
}

// applyThread sets every control on the calling thread, which the caller
// holds locked, then checks that the kernel shows it.
func (s *specCtlSession) applyThread(role string) {
	pid, tid := s.sys.getpid(), s.sys.gettid()
	for _, st := range s.settings {
		c, _ := lookupSpecCtl(st.Control)
		if err := s.sys.set(c.which, c.set[st.Value]); err != nil {
			s.fail(fmt.Errorf("--spec %s: the kernel refused prctl(PR_SET_SPECULATION_CTRL) in task %d: %s", st, tid, errnoText(err)))
			return
		}
	}
	for i, st := range s.settings {
		c, _ := lookupSpecCtl(st.Control)
		var state, source string
		if c.status == "" {
			v, err := s.sys.get(c.which)
			if err != nil {
				s.fail(fmt.Errorf("--spec %s: PR_GET_SPECULATION_CTRL in task %d: %s", st, tid, errnoText(err)))
				return
			}
			state, source = strings.Join(sysinfo.SpecBits(v), " "), "PR_GET_SPECULATION_CTRL"
		} else {
			var err error
			source = "/proc/PID/task/TID/status"
			if state, err = taskSpecState(s.sys.proc, pid, tid, c.status); err != nil {
				s.fail(fmt.Errorf("--spec %s: %w", st, err))
				return
			}
		}
		if state != c.expect[st.Value] {
			s.fail(fmt.Errorf("--spec %s is not in effect in task %d of process %d: the kernel shows %q, not %q", st, tid, pid, state, c.expect[st.Value]))
		}
		s.note(i, role, source, state, pid)
	}
}

// checkWorkers reads every task of the worker processes and checks the
// controls that have a status line (the L1D flush has none; it is
// inherited from the runner thread, where it was checked).
func (s *specCtlSession) checkWorkers(pids []int) {
	for _, pid := range pids {
		tasks, err := os.ReadDir(filepath.Join(s.sys.proc, strconv.Itoa(pid), "task"))
		if err != nil {
			s.fail(fmt.Errorf("--spec: cannot list the tasks of worker %d: %v", pid, err))
			return
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			for i, st := range s.settings {
				c, _ := lookupSpecCtl(st.Control)
				if c.status == "" {
					continue
				}
				state, err := taskSpecState(s.sys.proc, pid, tid, c.status)
				if errors.Is(err, fs.ErrNotExist) {
					break // a runtime thread that exited since the listing
				}
				if err != nil {
					s.fail(fmt.Errorf("--spec %s: %w", st, err))
					return
				}
				if state != c.expect[st.Value] {
					s.fail(fmt.Errorf("--spec %s is not in effect in task %d of worker %d: the kernel shows %q, not %q", st, tid, pid, state, c.expect[st.Value]))
				}
				s.note(i, "worker", "/proc/PID/task/TID/status", state, pid)
			}
		}
	}
}

// taskSpecState returns the value of key in /proc/PID/task/TID/status.
func taskSpecState(proc string, pid, tid int, key string) (string, error) {
	path := filepath.Join(proc, strconv.Itoa(pid), "task", strconv.Itoa(tid), "status")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("cannot read the task's state: %w", err)
	}
	if v, ok := sysinfo.StatusValue(string(b), key); ok {
		return v, nil
	}
	return "", fmt.Errorf("%s has no %s line (the kernel is too old to show it)", path, key)
}

func errnoText(err error) string {
	var e unix.Errno
	if errors.As(err, &e) {
		return unix.ErrnoName(e) + " (" + e.Error() + ")"
	}
	return err.Error()
}

// SpecCtlThread applies the run's speculation controls (if any) to the calling
// worker thread, which must be locked to its goroutine. It takes one more
// lock that is never released, so that the thread exits with its goroutine
// instead of going back to the runtime's pool carrying the control. A
// failure is recorded and fails the repetition after it ran (a worker
// thread that stopped here would leave the others waiting).
func (e Env) SpecCtlThread() {
	if e.spec == nil {
		return
	}
	runtime.LockOSThread()
	e.spec.applyThread("thread")
}

// specCtlWorkers checks the controls in every task of the worker processes,
// at the start barrier (every worker alive and ready, nothing timed yet).
func (e Env) specCtlWorkers(pids ...int) {
	if e.spec != nil {
		e.spec.checkWorkers(pids)
	}
}

// specCtlWorkload runs a workload under per-task speculation controls.
type specCtlWorkload struct {
	Workload
	settings []SpecCtlSetting
	kernel   map[string]string
	sys      *specCtlSys
}

// WithSpecCtl returns w running each repetition under the settings, which
// CheckSpecCtl accepted against offers: on a thread of its own that sets them
// before the workload starts, checks them in every task, records them in
// the sample (run.Result.SpecControls) and exits with the repetition.
func WithSpecCtl(w Workload, settings []SpecCtlSetting, offers []SpecCtlOffer) Workload {
	kernel := map[string]string{}
	for _, o := range offers {
		kernel[o.Control] = o.Kernel
	}
	return specCtlWorkload{Workload: w, settings: settings, kernel: kernel, sys: &realSpecCtlSys}
}

// Run implements Workload.
func (w specCtlWorkload) Run(ctx context.Context, env Env, p Params) (Sample, error) {
	sess := newSpecCtlSession(w.settings, w.kernel, w.sys)
	env.spec = sess
	type result struct {
		s   Sample
		err error
	}
	done := make(chan result, 1)
	go func() {
		// Never unlocked: the thread carries the controls and exits with
		// this goroutine.
		runtime.LockOSThread()
		sess.applyThread("runner-thread")
		if err := sess.err(); err != nil {
			done <- result{err: err}
			return
		}
		s, err := w.Workload.Run(ctx, env, p)
		done <- result{s, err}
	}()
	r := <-done
	if r.err != nil {
		return Sample{}, r.err
	}
	if err := sess.err(); err != nil {
		return Sample{}, err
	}
	r.s.SpecControls = sess.record()
	return r.s, nil
}

// lockThreadForever locks the calling goroutine to its thread for good:
// the thread exits with the goroutine.
func lockThreadForever() { runtime.LockOSThread() }
