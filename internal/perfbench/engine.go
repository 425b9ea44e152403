package perfbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/child"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/workload"
)

// Engine is an installed perf binary.
type Engine struct {
	Path string
	// Version is what `perf version` printed ("perf version 6.1.187").
	Version      string
	Major, Minor int
}

// ErrNotFound means no perf binary could be run.
var ErrNotFound = errors.New("perf not found")

// Find locates perf (path "" means $PATH) and reads its version.
func Find(ctx context.Context, path string) (*Engine, error) {
	if path == "" {
		p, err := child.LookPath("perf")
		if err != nil {
			return nil, fmt.Errorf("%w on PATH: install it (Debian: apt-get install linux-perf; Ubuntu: apt-get install linux-tools-$(uname -r); Fedora: dnf install perf) or use --engine native", ErrNotFound)
		}
		path = p
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := child.Output(ctx, child.Options{Env: []string{"LC_ALL=C"}, Combined: true, WaitDelay: time.Second}, path, "version")
	if err != nil {
		// Debian's /usr/bin/perf is a wrapper that fails when no perf for
		// the running kernel is installed; say so.
		return nil, fmt.Errorf("%w: `%s version` failed: %v: %s", ErrNotFound, path, err, tail(out, 2))
	}
	e := &Engine{Path: path, Version: strings.TrimSpace(string(out))}
	e.Major, e.Minor, err = ParseVersion(e.Version)
	if err != nil {
		return nil, err
	}
	return e, nil
}

var reVersion = regexp.MustCompile(`perf version (\d+)\.(\d+)`)

// ParseVersion reads major and minor from `perf version` output.
func ParseVersion(s string) (major, minor int, err error) {
	m := reVersion.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, fmt.Errorf("cannot read a version from %q", strings.TrimSpace(s))
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, nil
}

// PipeStyle is the sched pipe semantics of this perf: symmetric from 6.15
// on, strict ping-pong before (commit 99476fa085da).
func (e *Engine) PipeStyle() string {
	if e.Major > 6 || (e.Major == 6 && e.Minor >= 15) {
		return "symmetric"
	}
	return "pingpong"
}

// Args returns the perf arguments equivalent to a workload's parameters,
// or a usage error when perf cannot do what the parameters ask.
func (e *Engine) Args(id string, p workload.Params) ([]string, error) {
	for _, k := range []string{"loops", "groups"} {
		if p.Int(k) > 1<<31-1 {
			return nil, &workload.UsageError{Msg: fmt.Sprintf("%s.%s=%d is more than perf accepts (at most 2147483647)", id, k, p.Int(k))}
		}
	}
	switch id {
	case "syscall-basic":
		return []string{"bench", "syscall", "basic", "-l", itoa(p.Int("loops"))}, nil
	case "sched-pipe":
		if st := p.Str("style"); st != e.PipeStyle() {
			return nil, &workload.UsageError{Msg: fmt.Sprintf(
				"%s runs sched pipe in %s style, not %s: use --param sched-pipe.style=%s (perf >= 6.15 is symmetric, older perf ping-pong)",
				e.Version, e.PipeStyle(), st, e.PipeStyle())}
		}
		a := []string{"bench", "sched", "pipe", "-l", itoa(p.Int("loops"))}
		if p.Str("mode") == "thread" {
			a = append(a, "-T")
		}
		return a, nil
	case "sched-messaging":
		a := []string{"bench", "sched", "messaging", "-g", itoa(p.Int("groups")), "-l", itoa(p.Int("loops"))}
		if p.Str("ipc") == "pipe" {
			a = append(a, "-p")
		}
		if p.Str("mode") == "thread" {
			a = append(a, "-t")
		}
		return a, nil
	}
	return nil, &workload.UsageError{Msg: fmt.Sprintf("workload %s has no perf bench equivalent (perf engine: syscall-basic, sched-pipe, sched-messaging)", id)}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Supports reports whether id has a perf equivalent.
func Supports(id string) bool {
	switch id {
	case "syscall-basic", "sched-pipe", "sched-messaging":
		return true
	}
	return false
}

// Wrap returns a workload that runs w's perf equivalent with the same
// parameters. Its Info is w's, so results line up with native ones.
func (e *Engine) Wrap(w workload.Workload) (workload.Workload, error) {
	if !Supports(w.Info().ID) {
		_, err := e.Args(w.Info().ID, nil)
		return nil, err
	}
	return &perfWorkload{e: e, native: w}, nil
}

type perfWorkload struct {
	e      *Engine
	native workload.Workload
}

func (w *perfWorkload) Info() workload.Info { return w.native.Info() }

// Preflight checks that perf can run these parameters.
func (w *perfWorkload) Preflight(p workload.Params) error {
	if _, err := w.e.Args(w.native.Info().ID, p); err != nil {
		return err
	}
	if pf, ok := w.native.(workload.Preflighter); ok {
		return pf.Preflight(p)
	}
	return nil
}

// Run runs perf once. perf inherits this process's CPU affinity; it runs
// in a process group of its own, killed as a whole on cancel (perf 6.1
// leaves its messaging children behind when it is interrupted).
func (w *perfWorkload) Run(ctx context.Context, env workload.Env, p workload.Params) (workload.Sample, error) {
	id := w.native.Info().ID
	args, err := w.e.Args(id, p)
	if err != nil {
		return workload.Sample{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd := child.Command(ctx, w.e.Path, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	wait, err := child.Start(cmd)
	if err == nil {
		err = wait()
		// Whatever perf left in its group (its messaging children) goes too.
		child.Kill(cmd)
	}
	if ctx.Err() != nil {
		return workload.Sample{}, ctx.Err()
	}
	var ee *child.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 129 {
		// perf's usage exit: this perf lacks an option we passed.
		return workload.Sample{}, &workload.UsageError{Msg: fmt.Sprintf("%s does not accept `perf %s` (%s): upgrade perf or use --engine native",
			w.e.Version, strings.Join(args, " "), tail(stderr.Bytes(), 1))}
	}
	if err != nil {
		return workload.Sample{}, fmt.Errorf("perf %s: %v: %s", strings.Join(args, " "), err, tail(stderr.Bytes(), 3))
	}
	out, err := Parse(stdout.Bytes())
	if err != nil {
		return workload.Sample{}, fmt.Errorf("perf %s: %w", strings.Join(args, " "), err)
	}
	return sampleOf(id, p, out)
}

// sampleOf maps perf's output onto the native workload's metrics, checking
// that perf ran what was asked.
func sampleOf(id string, p workload.Params, o Output) (workload.Sample, error) {
	v := map[string]float64{}
	switch id {
	case "syscall-basic", "sched-pipe":
		if o.Executed != p.Int("loops") {
			return workload.Sample{}, fmt.Errorf("perf executed %d loops, asked %d", o.Executed, p.Int("loops"))
		}
		v["usecs_per_op"] = o.UsecsPerOp
		v["ops_per_sec"] = o.OpsPerSec
	case "sched-messaging":
		if o.Groups != p.Int("groups") {
			return workload.Sample{}, fmt.Errorf("perf ran %d groups, asked %d", o.Groups, p.Int("groups"))
		}
		v["total_s"] = o.TotalSec
	}
	return workload.Sample{Values: v}, nil
}

// tail returns the last n non-empty lines of b, joined by " | ".
func tail(b []byte, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return "(no output)"
	}
	return strings.Join(lines, " | ")
}
