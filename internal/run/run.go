// Package run defines the sectax.run/v1 document: one invocation of
// `sectax run`, its environment and every sample it measured. It is the
// contract shared by the runner, the store, export/import and the reports.
package run

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/sysinfo"
)

// Schema is the value of the "schema" field of every run document.
const Schema = "sectax.run/v1"

// Status is the state of a run.
type Status string

// The states a run can be in. A run is stored as Running when it starts and
// ends in one of the other three.
const (
	StatusRunning     Status = "running"
	StatusComplete    Status = "complete"
	StatusInterrupted Status = "interrupted"
	StatusFailed      Status = "failed"
)

// Better says which direction of a metric is an improvement.
type Better string

// The two directions.
const (
	Lower  Better = "lower"
	Higher Better = "higher"
)

// Run is one invocation of `sectax run`.
type Run struct {
	Schema      string            `json:"schema"`
	ID          string            `json:"id"`
	Label       string            `json:"label"`
	Started     time.Time         `json:"started"`
	Finished    time.Time         `json:"finished"`
	Status      Status            `json:"status"`
	Suite       string            `json:"suite"`
	Engine      string            `json:"engine"`
	ToolVersion string            `json:"tool_version"`
	Repetitions int               `json:"runs"` // measured repetitions per workload (the JSON name is the contract)
	Warmup      int               `json:"warmup"`
	Seed        int64             `json:"seed"`
	CPUs        string            `json:"cpus,omitempty"`
	PerfVersion string            `json:"perf_version,omitempty"`
	Env         *sysinfo.Snapshot `json:"env"`
	// Config is the configuration the run was measured under, when a lab,
	// campaign or attribution plan produced it (absent for a plain run).
	Config *Config `json:"config,omitempty"`
	// Campaign places the run in the campaign that measured it (absent
	// for a run not measured by `sectax campaign`).
	Campaign *Campaign `json:"campaign,omitempty"`
	// Lab describes the virtual machine a `sectax lab` run was measured
	// in (absent for a run on the machine itself).
	Lab *Lab `json:"lab,omitempty"`
	// HostMark is the mark of the host that measured the run
	// (hostid.Key.Mark of its id; absent for a lab guest's run, a run
	// measured under another --root, and runs of sectax before it). It is
	// data: only the host whose key made it recognises it (decide counts
	// only this host's runs), and it fits no other run id.
	HostMark string `json:"host_mark,omitempty"`
	// Load is how busy the machine was at the run's start and end (load
	// average, steal, other sectax processes); absent in documents written
	// before sectax recorded it, and for runs measured without it (a lab
	// guest, a campaign's step).
	Load *Load `json:"load,omitempty"`
	// Notes say what the run left out and why (a workload skipped).
	Notes   []string `json:"notes,omitempty"`
	Results []Result `json:"results"`
}

// Load is the machine's load read when the run started and when it
// ended (either absent when it could not be read).
type Load struct {
	Start *sysinfo.Load `json:"start,omitempty"`
	End   *sysinfo.Load `json:"end,omitempty"`
}

// StealPct is the share of the CPU time between the start and the end
// that the hypervisor gave to others, in percent; ok is false when either
// reading lacks the counters or no time passed.
func (l *Load) StealPct() (pct float64, ok bool) {
	if l == nil || l.Start == nil || l.End == nil || l.Start.CPUSeconds == nil || l.End.CPUSeconds == nil ||
		l.Start.StealSeconds == nil || l.End.StealSeconds == nil {
		return 0, false
	}
	dt := *l.End.CPUSeconds - *l.Start.CPUSeconds
	ds := *l.End.StealSeconds - *l.Start.StealSeconds
	if dt <= 0 || ds < 0 || math.IsNaN(dt) || math.IsNaN(ds) {
		return 0, false
	}
	return 100 * ds / dt, true
}

// Config names the configuration a run was measured under: the kernel
// parameters it adds to the default command line, and what was verified
// about the boot before any sample was taken.
type Config struct {
	Name         string        `json:"name"`
	Params       []string      `json:"params"`
	Verification *Verification `json:"verification,omitempty"`
}

// Campaign is where a run stands in a campaign: the campaign's id, the
// step of its plan (1-based) and which boot of its configuration it was
// (1-based).
type Campaign struct {
	ID   string `json:"id"`
	Step int    `json:"step"`
	Boot int    `json:"boot"`
}

// Lab is the virtual machine and the host of a run measured by `sectax
// lab`: under the tcg accelerator every timing is an emulator artefact, so
// the accelerator is part of the result.
type Lab struct {
	QEMUVersion string `json:"qemu_version"`
	// Accel is kvm or tcg; CPUModel is QEMU's -cpu.
	Accel     string `json:"accel"`
	CPUModel  string `json:"cpu_model"`
	MemoryMiB int    `json:"memory_mib"`
	VCPUs     int    `json:"vcpus"`
	// HostKernel and HostCPU describe the machine QEMU ran on.
	HostKernel string `json:"host_kernel"`
	HostCPU    string `json:"host_cpu"`
	// Kernel names the image in labels; KernelImage is its path and
	// KernelSHA256 the sha256 of its bytes.
	Kernel       string `json:"kernel"`
	KernelImage  string `json:"kernel_image"`
	KernelSHA256 string `json:"kernel_sha256"`
	// LabParams are the kernel parameters every boot of the plan got
	// besides the configuration's (console, panic).
	LabParams string `json:"lab_params"`
	// Boot is this boot's place in the plan (1-based) of Boots; PlanSeed
	// shuffled the order.
	Boot     int   `json:"boot"`
	Boots    int   `json:"boots"`
	PlanSeed int64 `json:"plan_seed"`
	// BootToInitS is the time from QEMU's start to /init's handshake,
	// VMWallS to QEMU's exit (the run's own started–finished span is
	// the measuring; the rest is the lab's overhead); QEMUPeakRSSKiB is
	// QEMU's peak resident set size.
	BootToInitS float64 `json:"boot_to_init_s"`
	// GuestUptimeAtInitS is the guest kernel's own uptime at that
	// handshake (the rest of BootToInitS is firmware, loading and
	// decompressing the kernel).
	GuestUptimeAtInitS float64 `json:"guest_uptime_at_init_s"`
	VMWallS            float64 `json:"vm_wall_s"`
	QEMUPeakRSSKiB     int64   `json:"qemu_peak_rss_kib"`
}

// Verification is what sectax checked about a boot before measuring it
// under a configuration. A boot that does not verify is never measured, so
// a stored run carries OK=true; a refused boot's verification is reported,
// not stored as a run.
type Verification struct {
	OK bool `json:"ok"`
	// BootID is the boot verified; Cmdline its /proc/cmdline.
	BootID  string `json:"boot_id"`
	Cmdline string `json:"cmdline"`
	// Missing are the configuration's parameters absent from the command
	// line; Foreign are parameters of another configuration of the same
	// plan found on it.
	Missing []string `json:"missing,omitempty"`
	Foreign []string `json:"foreign,omitempty"`
	// ExpectedOff are the vulnerability files the configuration is
	// expected to turn off; StillMitigated those of them that still say
	// "Mitigation:".
	ExpectedOff    []string `json:"expected_off,omitempty"`
	StillMitigated []string `json:"still_mitigated,omitempty"`
	// Reasons say, one line each, why the boot does not verify.
	Reasons []string `json:"reasons,omitempty"`
}

// Result holds the samples of one workload with one set of parameters.
type Result struct {
	Workload string         `json:"workload"`
	Engine   string         `json:"engine,omitempty"`
	Params   map[string]any `json:"params"`
	Metrics  []Metric       `json:"metrics"`
	Warnings []string       `json:"warnings,omitempty"`
	// Failures holds one line per repetition that failed.
	Failures []string `json:"failures,omitempty"`
	// Footprint is the largest worker footprint a repetition measured.
	Footprint *Footprint `json:"footprint,omitempty"`
	// SpecControls are the per-task speculation controls (prctl) the
	// repetitions ran under, with what was verified from /proc; absent
	// when none was requested.
	SpecControls []SpecControl `json:"spec_controls,omitempty"`
	// Stopping says by which rule the repetitions ended and the precision
	// reached; WarmupDone how the warm-up ended. Both are absent in
	// documents written before sectax recorded them.
	Stopping   *Stopping     `json:"stopping,omitempty"`
	WarmupDone *WarmupRecord `json:"warmup,omitempty"`
}

// SpecControl is one per-task speculation control applied to a workload's
// tasks before the timed window, and what the kernel showed of it.
type SpecControl struct {
	// Control is ssbd (PR_SPEC_STORE_BYPASS), ib (PR_SPEC_INDIRECT_BRANCH)
	// or l1d_flush (PR_SPEC_L1D_FLUSH).
	Control string `json:"control"`
	// Requested is the mitigation state asked for: force, on or off.
	Requested string `json:"requested"`
	// Kernel is the kernel's mode before anything was set, from
	// PR_GET_SPECULATION_CTRL ("prctl enable").
	Kernel string `json:"kernel"`
	// Expected is the state that proves the control is in effect: the
	// /proc status text, or the PR_GET_SPECULATION_CTRL bits for l1d_flush
	// (which has no status line).
	Expected string `json:"expected"`
	// Verified groups the tasks checked by role and the state they showed
	// (every one equals Expected: a repetition where one did not fails).
	Verified []SpecTasks `json:"verified"`
}

// SpecTasks is a group of tasks of one role that showed the same state.
type SpecTasks struct {
	// Role is runner-thread (the thread that runs the workload and starts
	// its children), thread (a worker thread) or worker (a worker process:
	// all of its tasks).
	Role string `json:"role"`
	// Source is where the state was read ("/proc/PID/task/TID/status" or
	// "PR_GET_SPECULATION_CTRL").
	Source    string `json:"source"`
	State     string `json:"state"`
	Processes int    `json:"processes"`
	Tasks     int    `json:"tasks"`
}

// Footprint is what a workload's worker processes used, measured from
// /proc at the start barrier (all workers alive and ready).
type Footprint struct {
	Processes int64 `json:"processes"`
	Threads   int64 `json:"threads"`
	// RSSKiB counts a shared page once in every process that maps it;
	// PSSKiB divides it among them, so it is the memory really used.
	RSSKiB int64 `json:"rss_kib"`
	PSSKiB int64 `json:"pss_kib"`
}

// String renders the footprint for people.
func (f Footprint) String() string {
	return fmt.Sprintf("%s, %s, %.1f MiB proportional set size (RSS summed: %.1f MiB) at the start barrier",
		plural(f.Processes, "worker process", "worker processes"), plural(f.Threads, "thread", "threads"),
		float64(f.PSSKiB)/1024, float64(f.RSSKiB)/1024)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// Metric is one measured quantity and its samples in run order.
type Metric struct {
	Name    string    `json:"name"`
	Unit    string    `json:"unit"`
	Better  Better    `json:"better"`
	Samples []float64 `json:"samples"`
}

// Metric returns the metric called name, or nil.
func (r *Result) Metric(name string) *Metric {
	for i := range r.Metrics {
		if r.Metrics[i].Name == name {
			return &r.Metrics[i]
		}
	}
	return nil
}

// ParamsKey renders params canonically ("groups=20 loops=1000", keys
// sorted), so that results with equal parameters get equal keys whether
// they were built in memory (int64) or decoded from JSON (float64).
func ParamsKey(params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(FormatParam(params[k]))
	}
	return b.String()
}

// ParamInt reads an integer parameter as a run holds it: int64 when
// measured, float64 when decoded from JSON; 0 for anything else.
func ParamInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

// FormatParam renders one parameter value.
func FormatParam(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	default:
		return fmt.Sprint(x)
	}
}

// Primary is the samples of the result's primary metric: the first
// declared one that has samples (an engine may not measure every one).
// The precision rule stops on it and the estimate learns from it.
func (r *Result) Primary() []float64 {
	for _, mt := range r.Metrics {
		if len(mt.Samples) > 0 {
			return mt.Samples
		}
	}
	return nil
}

// Host is what a list or a comparison shows as the host of a run measured
// in the lab: its guest has no hostname (the kernel's "(none)"), so the lab
// and the kernel it booted (Kernel, the name in labels) stand for it.
func (l *Lab) Host() string {
	if l.Kernel == "" {
		return "lab"
	}
	return "lab " + l.Kernel
}

// Took is how long the run took (Took).
func (r *Run) Took() time.Duration {
	var wall time.Duration
	if r.Lab != nil {
		wall = r.Lab.VMWall()
	}
	return Took(r.Started, r.Finished, wall)
}

// Took is how long a run took: for a run measured in a lab guest its
// whole boot (vmWall, the lab block's VM wall time, when it has one),
// else its start to its finish.
func Took(started, finished time.Time, vmWall time.Duration) time.Duration {
	if vmWall > 0 {
		return vmWall
	}
	return finished.Sub(started)
}

// VMWall is the lab block's VM wall time, QEMU's start to its exit: 0
// when unknown or not below 30 days (a stored block is foreign text).
func (l *Lab) VMWall() time.Duration {
	if w := l.VMWallS; w > 0 && w < 30*24*3600 {
		return time.Duration(w * float64(time.Second))
	}
	return 0
}
