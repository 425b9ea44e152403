package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

// TestMain lets the test binary stand in for sectax: as a worker child
// (re-executed through /proc/self/exe) and, with SECTAX_CLI_MAIN=1, as the
// whole command, so that signal tests run the real thing. The tests that
// boot QEMU guests are in internal/e2e.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workload.WorkerCommand {
		if err := workload.WorkerMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv("SECTAX_CLI_MAIN") == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

// fixedDeps are deterministic dependencies: a fixed clock and run id and,
// unless reg is nil, the given workloads.
func fixedDeps(reg *workload.Registry) Deps {
	if reg == nil {
		reg = workload.Default()
	}
	clock := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	return Deps{
		Registry:   reg,
		Exe:        "/proc/self/exe",
		WorkerArgs: []string{workload.WorkerCommand},
		Now:        func() time.Time { clock = clock.Add(time.Second); return clock },
		NewRunID:   func() string { return "20261130T090000-abcdef" },
	}
}

// sectax runs the CLI in-process and returns stdout, stderr and the exit code.
func sectax(t *testing.T, deps Deps, args ...string) (string, string, int) {
	t.Helper()
	// Never the user's database: a fresh one per test unless one is set.
	if os.Getenv("SECTAX_DB") == "" {
		t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	}
	var out, errb bytes.Buffer
	code := mainWith(context.Background(), args, &out, &errb, deps)
	checkTextWidths(t, deps, args, out.String())
	return out.String(), errb.String(), code
}

// fake is a workload with scripted samples: value i of metric m is
// base[m] + i*step[m]. It never touches the system.
type fake struct {
	id   string
	n    int
	base map[string]float64
}

func (f *fake) Info() workload.Info {
	return workload.Info{
		ID: f.id, Title: "scripted test workload", Stresses: workload.Stress{Paths: []string{"entry-exit"}, Note: "nothing"},
		Params: []workload.ParamSpec{
			{Key: "loops", Help: "iterations", Default: int64(100), Quick: int64(10), Study: int64(1000), Min: 1, Max: 1e6},
			{Key: "mode", Help: "how", Default: "process", Choices: []string{"process", "thread"}},
		},
		Metrics: []workload.MetricSpec{
			{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower},
			{Name: "ops_per_sec", Unit: "ops/s", Better: run.Higher},
		},
	}
}

func (f *fake) Run(ctx context.Context, _ workload.Env, p workload.Params) (workload.Sample, error) {
	i := float64(f.n)
	f.n++
	us := f.base["usecs_per_op"] + 0.01*i
	return workload.Sample{Values: map[string]float64{"usecs_per_op": us, "ops_per_sec": 1e6 / us}}, nil
}

func fakeRegistry() *workload.Registry {
	return workload.NewRegistry(
		&fake{id: "alpha", base: map[string]float64{"usecs_per_op": 1.5}},
		&fake{id: "beta", base: map[string]float64{"usecs_per_op": 8.25}},
	)
}

func TestWorkloadsGolden(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		out, errs, code := sectax(t, fixedDeps(nil), "workloads", "--format", format)
		if code != 0 || errs != "" {
			t.Fatalf("exit %d: %s", code, errs)
		}
		testutil.Golden(t, filepath.Join("testdata", "workloads."+format), []byte(out))
	}
}

func TestRunGolden(t *testing.T) {
	runGolden(t, "run", "--label", "on", "--param", "beta.mode=thread")
}

// runGolden runs the scripted workloads (quick suite, seed 1, not stored)
// with args in text and in JSON, compared with testdata/NAME.text and
// NAME.json.
func runGolden(t *testing.T, name string, args ...string) {
	t.Helper()
	for _, format := range []string{"text", "json"} {
		all := append([]string{"run", "--root", wslOn, "--suite", "quick", "--seed", "1", "--format", format, "--no-store"}, args...)
		out, errs, code := sectax(t, fixedDeps(fakeRegistry()), all...)
		if code != 0 || withoutEstimate(errs) != "" {
			t.Fatalf("exit %d: %s", code, errs)
		}
		testutil.Golden(t, filepath.Join("testdata", name+"."+format), []byte(out))
	}
}

// TestRunOutputFile: -o writes the file atomically and nothing to stdout.
func TestRunOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	out, errs, code := sectax(t, fixedDeps(fakeRegistry()), "run", "--root", wslOn, "--suite", "quick",
		"--runs", "2", "--format", "json", "-o", path, "--no-store")
	if code != 0 || out != "" || withoutEstimate(errs) != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), `"schema": "sectax.run/v1"`) {
		t.Fatalf("%v: %s", err, b)
	}
	_, errs, code = sectax(t, fixedDeps(fakeRegistry()), "run", "--root", wslOn, "--runs", "1", "--no-store",
		"-o", "/nonexistent-dir/x.txt")
	if code != 1 || !strings.Contains(errs, "/nonexistent-dir/x.txt") {
		t.Errorf("unwritable -o: exit %d, %q", code, errs)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--only", "nope"}, `unknown workload "nope" (accepted: syscall-basic, sched-pipe, sched-messaging`},
		{[]string{"run", "--param", "sched-pipe.loops=0"}, "sched-pipe.loops=0 is out of range (accepted: 1..1099511627776)"},
		{[]string{"run", "--param", "sched-pipe.size=3"}, `workload sched-pipe has no parameter "size" (accepted: loops, mode, spawn, style)`},
		{[]string{"run", "--param", "sched-pipe.mode=fiber"}, `sched-pipe.mode="fiber" is not accepted (accepted: process, thread)`},
		{[]string{"run", "--param", "loops=3"}, `--param "loops=3": want ID.KEY=VALUE`},
		{[]string{"run", "--only", "syscall-basic", "--param", "sched-pipe.loops=3"}, "--param names sched-pipe, which is not selected"},
		{[]string{"run", "--cpus", "1-0"}, `--cpus: bad CPU range "1-0"`},
		{[]string{"run", "--cpus", "4000"}, "CPU 4000 is not online"},
		{[]string{"run", "--suite", "huge"}, `unknown suite "huge" (accepted: quick, standard, study)`},
		{[]string{"run", "--format", "xml"}, `--format "xml" is not accepted (accepted: text, json)`},
		{[]string{"run", "--engine", "gpu"}, `--engine "gpu" is not accepted (accepted: native, perf)`},
		{[]string{"run", "--runs", "-1"}, "--runs and --warmup must not be negative"},
		{[]string{"run", "--bogus"}, "unknown flag: --bogus ('sectax run --help' lists its flags)"},
		// Typos are refused with the word meant, never taken as advice (issue 47).
		{[]string{"run", "--sutie", "quick"}, "unknown flag: --sutie: did you mean --suite?"},
		{[]string{"compare", "--formt", "json", "a", "b"}, "did you mean --format?"},
		{[]string{"advise", "--root", wslOn, "--target", "of"}, "--target: of is not a kernel parameter sectax knows, and no kernel in its catalog accepts it: did you mean off or on?"},
		{[]string{"advise", "--root", wslOn, "--target", "mitigations=of"}, "--target: mitigations=of is not a value of mitigations= the kernel accepts"},
		{[]string{"advise", "--root", wslOn, "--target", "mitigations=of"}, "did you mean mitigations=off?"},
		{[]string{"advise", "--root", wslOn, "--target", "spectre_v3=off"}, "did you mean spectre_v2?"},
		{[]string{"verify", "--root", wslOn, "--expect", "offf"}, "--expect: offf is not a kernel parameter sectax knows, and no kernel in its catalog accepts it: did you mean off?"},
		{[]string{"run", "extra"}, `sectax run takes no arguments (got 1: extra)`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run", "--no-store", "--root", "/nonexistent", "--only", "syscall-basic", "--param", "syscall-basic.loops=1"}, "--root /nonexistent: bad root directory: /nonexistent is not a directory"},
		// Odd input that used to mean something else silently.
		{[]string{"run", "--only", ""}, "--only needs workload ids"},
		{[]string{"run", "--only", "sched-pipe,,syscall-basic"}, "--only needs workload ids"},
		{[]string{"run", "--skip", ""}, "--skip needs workload ids"},
		{[]string{"run", "--cmd", ""}, "--cmd is empty: give a command, e.g. --cmd 'make -j16'"},
		{[]string{"run", "--cmd", "  "}, "--cmd is empty"},
		{[]string{"run", "--cmd", "true", "--prepare", ""}, "--prepare is empty"},
		{[]string{"run", "--runs", "0"}, "--runs 0 measures nothing: give 1 or more"},
		{[]string{"crosscheck", "--runs", "0"}, "--runs 0 measures nothing"},
		{[]string{"crosscheck", "--only", ""}, "--only needs workload ids"},
		{[]string{"run", "--label", "on\n# Injected heading"}, `--label: "on\n# Injected heading" holds the control character U+000A`},
		{[]string{"run", "--label", "\x1b[31mred"}, "holds the control character U+001B"},
		{[]string{"run", "--label", "bell\a"}, "holds the control character U+0007"},
		{[]string{"run", "--label", "c1\u0085"}, "holds the control character U+0085"},
		{[]string{"run", "--label", "del\x7f"}, "holds the control character U+007F"},
		{[]string{"run", "--label", "bad\xff"}, "is not valid UTF-8"},
		// A fake root's environment is never stored beside live numbers.
		{[]string{"run", "--root", wslOn, "--only", "syscall-basic"}, "--root " + wslOn + " describes another machine but run measures this one"},
	} {
		out, errs, code := sectax(t, fixedDeps(nil), tt.args...)
		if code != ExitUsage || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("sectax %v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q",
				tt.args, code, out, errs, tt.want)
		}
	}
}

// TestRunRealTiny runs the real workloads at tiny sizes through the CLI.
func TestRunRealTiny(t *testing.T) {
	out, errs, code := sectax(t, fixedDeps(nil), "run", "--no-store", "--root", wslOn, "--runs", "2", "--warmup", "0",
		"--skip", "go-build", "--param", "syscall-basic.loops=1000", "--param", "sched-pipe.loops=100",
		"--param", "sched-messaging.groups=1", "--param", "sched-messaging.loops=5",
		"--param", "spawn.loops=3", "--param", "file-churn.files=5", "--param", "ctl-user.loops=1000",
		"--param", "ctl-vdso.loops=1000", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`"workload": "syscall-basic"`, `"workload": "sched-pipe"`, `"workload": "sched-messaging"`,
		`"workload": "spawn"`, `"workload": "file-churn"`, `"workload": "ctl-user"`, `"workload": "ctl-vdso"`,
		`"status": "complete"`, `"name": "work_s"`, `"processes": 40`} {
		if !strings.Contains(out, want) {
			t.Errorf("run document lacks %s", want)
		}
	}
}

// TestProgress: a terminal gets a status line with an ETA that is cleared at
// the end; -q or a non-terminal stderr gets nothing.
func TestProgress(t *testing.T) {
	deps := fixedDeps(fakeRegistry())
	deps.StderrIsTerminal = true
	_, errs, code := sectax(t, deps, "run", "--root", wslOn, "--runs", "2", "--seed", "3", "--no-store")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"\r\x1b[K[1/6] alpha warmup 1 · 0:00 elapsed · ETA --:--", "[6/6] ", "ETA 0:00", " measure 2 "} {
		if !strings.Contains(errs, want) {
			t.Errorf("progress lacks %q:\n%q", want, errs)
		}
	}
	if !strings.HasSuffix(errs, "\r\x1b[K") {
		t.Errorf("progress line not cleared at the end: %q", errs)
	}
	_, errs, _ = sectax(t, deps, "run", "--root", wslOn, "--runs", "2", "-q", "--no-store")
	deps.StderrIsTerminal = false
	_, errs2, _ := sectax(t, deps, "run", "--root", wslOn, "--runs", "2", "--no-store")
	if errs != "" || withoutEstimate(errs2) != "" {
		t.Errorf("progress drawn with -q (%q) or without a terminal (%q)", errs, errs2)
	}
}

// wslOn is the fake tree of a WSL 2 guest with the study's default
// (mitigations on) command line.
var wslOn = testutil.SysinfoRoot("wsl2-intel-on")

// TestRunStores: a run is stored by default (list shows it, show prints
// it), --no-store leaves the database alone, and a second measurer is
// refused while the lock is held.
func TestRunStores(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SECTAX_DB", filepath.Join(dir, "sectax.db"))
	deps := fixedDeps(fakeRegistry())
	_, errs, code := sectax(t, deps, "run", "--suite", "quick", "--label", "on", "--seed", "1")
	if code != 0 || !strings.Contains(errs, "stored run 20261130T090000-abcdef") {
		t.Fatalf("exit %d: %q", code, errs)
	}
	out, errs, code := sectax(t, deps, "list")
	if code != 0 || !strings.Contains(out, "20261130T090000-abcdef") || !strings.Contains(out, "complete") {
		t.Fatalf("list: exit %d %q\n%s", code, errs, out)
	}
	out, _, code = sectax(t, deps, "show", "20261130T090000-abcdef", "--format", "json")
	if code != 0 || !strings.Contains(out, `"label": "on"`) || !strings.Contains(out, "1.51") {
		t.Fatalf("show: exit %d\n%s", code, out)
	}

	t.Setenv("SECTAX_DB", filepath.Join(dir, "other.db"))
	if _, errs, code := sectax(t, deps, "run", "--root", wslOn, "--runs", "1", "--no-store"); code != 0 || strings.Contains(errs, "stored") {
		t.Fatalf("--no-store: exit %d %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "other.db")); !os.IsNotExist(err) {
		t.Errorf("--no-store created the database (%v)", err)
	}

	release, err := storetest.Ref(t, filepath.Join(dir, "other.db")).Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	_, errs, code = sectax(t, deps, "run", "--root", wslOn, "--runs", "1", "--no-store")
	if code != 1 || !strings.Contains(errs, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second measurer: exit %d, %q", code, errs)
	}
}

// TestCrosscheckNoPerfHint: without perf, crosscheck names the fix that
// exists: it has no --engine flag to suggest.
func TestCrosscheckNoPerfHint(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, errs, code := sectax(t, fixedDeps(nil), "crosscheck", "--only", "syscall-basic")
	if code == 0 || strings.Contains(errs, "or use --engine native") ||
		!strings.Contains(errs, "sectax run --engine native (crosscheck always needs perf)") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestRunNoteSaidOnce: a plan note ("skipped cmd: …") is said once: in the
// text table's notes on stdout, and on stderr only when stdout is not that
// table (JSON, or -o FILE).
func TestRunNoteSaidOnce(t *testing.T) {
	const note = "skipped cmd: needs a command to time"
	args := []string{"run", "--no-store", "--root", wslOn, "--suite", "quick", "--skip", "sched-pipe,sched-messaging,go-build,spawn,file-churn,ctl-user,ctl-vdso",
		"--param", "syscall-basic.loops=100", "--runs", "1", "--warmup", "0"}
	out, errs, code := sectax(t, fixedDeps(nil), args...)
	if code != 0 || strings.Count(out+errs, note) != 1 || !strings.Contains(out, note) {
		t.Errorf("text: exit %d, the note %d times on stdout and %d on stderr; want once, on stdout",
			code, strings.Count(out, note), strings.Count(errs, note))
	}
	_, errs, code = sectax(t, fixedDeps(nil), append(args, "--format", "json")...)
	if code != 0 || !strings.Contains(errs, note) {
		t.Errorf("json: exit %d, stderr %q: want the note there", code, errs)
	}
}

// TestRunSaysBusyMachine: a run on a busy machine (the fake busy /proc
// tree: load average 110.52, other sectax processes) records its load at
// the start and the end, and warns below its result where the numbers are
// made (issue 47).
func TestRunSaysBusyMachine(t *testing.T) {
	deps := fixedDeps(fakeRegistry())
	busy, err := filepath.Abs("../sysinfo/testdata/load/busy")
	if err != nil {
		t.Fatal(err)
	}
	deps.Load = func(string) func() *sysinfo.Load { return measure.LoadReader(busy) }
	out, errs, code := sectax(t, deps, "run", "--root", wslOn, "--runs", "3", "--seed", "3", "--no-store", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r run.Run
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Load == nil || r.Load.Start == nil || r.Load.End == nil || *r.Load.Start.Load1 != 110.52 || r.Load.Start.OtherSectax != 3 {
		t.Fatalf("load %+v", r.Load)
	}
	for _, want := range []string{"sectax: warning: the machine was busy when the run started (load average 110.52 on 16 CPUs)",
		"sectax: warning: 3 other sectax processes measured at the same time"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}
