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

// PerfVersion is e's version as the workloads read it.
func (e *Engine) PerfVersion() workload.PerfVersion {
	return workload.PerfVersion{Text: e.Version, Major: e.Major, Minor: e.Minor}
}

// Wrap returns a workload that runs w's perf equivalent (w's
// workload.PerfBencher) with the same parameters. Its Info is w's, so
// results line up with native ones. A workload without one is a usage
// error.
func (e *Engine) Wrap(w workload.Workload) (workload.Workload, error) {
	pb, ok := w.(workload.PerfBencher)
	if !ok {
		return nil, &workload.UsageError{Msg: fmt.Sprintf("workload %s has no perf bench equivalent: run it with --engine native", w.Info().ID)}
	}
	return &perfWorkload{e: e, native: w, perf: pb}, nil
}

type perfWorkload struct {
	e      *Engine
	native workload.Workload
	perf   workload.PerfBencher
}

func (w *perfWorkload) Info() workload.Info { return w.native.Info() }

// Preflight checks that perf can run these parameters.
func (w *perfWorkload) Preflight(p workload.Params) error {
	if _, err := w.perf.PerfArgs(p, w.e.PerfVersion()); err != nil {
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
	args, err := w.perf.PerfArgs(p, w.e.PerfVersion())
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
	return w.perf.PerfSample(p, out)
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
