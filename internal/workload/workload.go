// Package workload defines the benchmarks sectax runs: the Workload
// interface, the parameter and metric declarations every workload makes, the
// explicit registry (registry.go) and one file per workload.
//
// Workloads that need separate processes re-execute the sectax binary with
// the hidden worker subcommand (worker.go); the parent and the children talk
// over raw file descriptors only.
package workload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
)

// Suite names a preset of workload sizes.
type Suite string

// The suites. Standard is the default.
const (
	Quick    Suite = "quick"
	Standard Suite = "standard"
	Study    Suite = "study"
)

// Suites lists the suites in the order the help shows them.
var Suites = []Suite{Quick, Standard, Study}

// ParseSuite checks a suite name.
func ParseSuite(s string) (Suite, error) {
	for _, x := range Suites {
		if string(x) == s {
			return x, nil
		}
	}
	return "", &UsageError{Msg: fmt.Sprintf("unknown suite %q (accepted: quick, standard, study)", s)}
}

// ParamSpec declares one parameter of a workload. A parameter is either an
// integer (Choices empty, Min..Max) or one of a fixed set of strings.
type ParamSpec struct {
	Key  string
	Help string
	// Default is the value of the standard suite: an int64 or a string.
	Default any
	// Quick and Study override Default in those suites; nil keeps Default.
	Quick any
	Study any
	// Min and Max bound integer parameters (inclusive).
	Min, Max int64
	// Choices lists the accepted values of a string parameter.
	Choices []string
	// Free marks a string parameter that takes any value (a path, a
	// command); Choices must then be empty. A free value never starts
	// with '-': it reaches another program's command line (or names a
	// path), where it would become a flag of that program.
	Free bool
	// Operands marks a free value whose words are each passed on as an
	// operand of another program (go-build's package patterns): no word
	// may start with '-'.
	Operands bool
}

// IsInt reports whether the parameter takes integers.
func (p ParamSpec) IsInt() bool { _, ok := p.Default.(int64); return ok }

// ValueFor returns the parameter's value in a suite.
func (p ParamSpec) ValueFor(s Suite) any {
	switch {
	case s == Quick && p.Quick != nil:
		return p.Quick
	case s == Study && p.Study != nil:
		return p.Study
	}
	return p.Default
}

// MetricSpec declares one metric a workload reports. The first metric of a
// workload is its primary one.
type MetricSpec struct {
	Name   string
	Unit   string
	Better run.Better
	Help   string
}

// Info is what a workload declares about itself.
type Info struct {
	// ID is the stable identifier stored with every result ("sched-pipe").
	ID string
	// Title is one line saying what the workload does.
	Title string
	// Perf is the equivalent perf command, if there is one.
	Perf string
	// Stresses says which kernel paths (and so which mitigations) it
	// taxes. Required: NewRegistry refuses a workload without it.
	Stresses Stress
	Params   []ParamSpec
	Metrics  []MetricSpec
	// Repetitions overrides the measured repetitions per suite (0: the runner's default).
	// Long workloads use it to keep a suite within its budget.
	Repetitions map[Suite]int
}

// Stress is what a workload does to the kernel.
type Stress struct {
	// Paths are the kernel paths it exercises, as the knowledge base's
	// tags (mitigation.TagEntryExit, …), the main one first. The
	// knowledge base names the mitigations that tax each path.
	Paths []string
	// Control marks a negative control: by design it stresses no kernel
	// path, and Paths is empty.
	Control bool
	// Varies marks a workload whose paths depend on what the user runs
	// (cmd), and Paths is empty.
	Varies bool
	// Note says it in words (sectax workloads shows it).
	Note string
	// Pays is one line of what a repetition pays for, beginning with its
	// main path's words from the knowledge base ("kernel entry and exit:
	// paid on …"): the description shown beside its result. Every built-in
	// workload has one (a test checks).
	Pays string
}

// Validate checks that a workload declares what it stresses: a note, and
// either kernel paths known to the knowledge base or that it is a
// negative control or varies.
func (i Info) Validate() error {
	s := i.Stresses
	switch {
	case i.ID == "" || i.Title == "":
		return fmt.Errorf("workload %q: ID and Title are required", i.ID)
	case strings.TrimSpace(s.Note) == "":
		return fmt.Errorf("workload %s: Stresses.Note is required: say which kernel paths it exercises", i.ID)
	case len(s.Paths) == 0 && !s.Control && !s.Varies:
		return fmt.Errorf("workload %s: Stresses.Paths is required (knowledge-base tags %v), unless it is a negative control or varies", i.ID, mitigation.KBTags)
	case len(s.Paths) > 0 && (s.Control || s.Varies):
		return fmt.Errorf("workload %s: a negative control or a varying workload lists no Stresses.Paths", i.ID)
	}
	for _, p := range s.Paths {
		if !slices.Contains(mitigation.KBTags, p) {
			return fmt.Errorf("workload %s: stress path %q is not one of the knowledge base's tags %v", i.ID, p, mitigation.KBTags)
		}
	}
	return nil
}

// MainPaths maps the id of every built-in workload that stresses a known
// kernel path to its main one (a knowledge-base tag).
func MainPaths() map[string]string {
	out := map[string]string{}
	for _, w := range Default().All() {
		if in := w.Info(); len(in.Stresses.Paths) > 0 {
			out[in.ID] = in.Stresses.Paths[0]
		}
	}
	return out
}

// Pays maps the id of every built-in workload to its Stress.Pays, the one
// line that describes it beside its result.
func Pays() map[string]string {
	out := map[string]string{}
	for _, w := range Default().All() {
		out[w.Info().ID] = w.Info().Stresses.Pays
	}
	return out
}

// Param returns the spec of key, or false.
func (i Info) Param(key string) (ParamSpec, bool) {
	for _, p := range i.Params {
		if p.Key == key {
			return p, true
		}
	}
	return ParamSpec{}, false
}

// Env is what a repetition may use of its surroundings.
type Env struct {
	// Exe is the binary that children re-execute with the worker
	// subcommand ("/proc/self/exe" by default; a test binary in tests).
	Exe string
	// WorkerArgs come before the worker's own arguments (the hidden
	// subcommand name).
	WorkerArgs []string
	// Timeout bounds one repetition; a worker that hangs fails it.
	Timeout time.Duration
	// spec, when set, applies per-task speculation controls (WithSpecCtl).
	spec *specCtlSession
}

// Sample is what one repetition measured: a value per metric name, and
// notes that belong beside the result.
type Sample struct {
	Values   map[string]float64
	Warnings []string
	// Footprint is set by workloads with worker processes.
	Footprint *run.Footprint
	// SpecControls is what WithSpecCtl applied and verified.
	SpecControls []run.SpecControl
}

// Workload is one benchmark.
type Workload interface {
	Info() Info
	// Run performs one repetition. It must honour ctx: on cancellation it
	// stops, reaps every child and returns ctx.Err().
	Run(ctx context.Context, env Env, p Params) (Sample, error)
}

// Preflighter is implemented by workloads that can tell before running
// whether the machine allows the requested size (fd and process limits).
type Preflighter interface {
	Preflight(p Params) error
}

// UsageError is a mistake in what the user asked for (exit code 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitKind says that it is a usage error.
func (e *UsageError) ExitKind() exit.Kind { return exit.Usage }

// Availability is implemented by workloads that may not run on every machine
// or that need a parameter no suite can supply (a command to time). When a
// suite selects such a workload and Available fails, the run skips it with a
// visible note; when the user names it (--only), the error is a usage error.
type Availability interface {
	Available(p Params) error
}
