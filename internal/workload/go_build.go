package workload

import (
	"context"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/mitigation"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// GoBuild is the study's macro benchmark: a clean `go build -a` with a
// fresh, empty GOCACHE for every repetition, timed with the rusage of the
// go command and of every compiler, assembler and linker it ran.
type GoBuild struct{}

// goBuildQuickTarget is the quick suite's target: standard packages that do
// not import the runtime, so that -a does not rebuild it (the runtime alone
// takes about 5 s on two cores). It still runs the go command and a
// compiler process per package, the shape of the full build, in about half
// a second.
const goBuildQuickTarget = "math math/cmplx unicode image/color/palette container/list"

// Info implements Workload.
func (GoBuild) Info() Info {
	return Info{
		ID:    "go-build",
		Title: "clean go build -a with an empty GOCACHE (the study's macro benchmark)",
		Stresses: Stress{Paths: []string{mitigation.TagProcessLifecycle, mitigation.TagEntryExit}, Note: "everything a toolchain does: a process per package (fork, exec, exit, wait), " +
			"file I/O in the build cache and work directory, page faults and pipes; in the study " +
			"mitigations cost it 16 s of system time",
			Pays: "process creation and exit: paid for the go command and every compiler and linker it starts"},
		Params: []ParamSpec{
			{Key: "target", Help: "package patterns to build, space separated (ignored with dir)",
				Default: "std", Quick: goBuildQuickTarget, Free: true, Operands: true},
			{Key: "dir", Help: "module directory: build its ./... instead of target, as the study did (empty: none)",
				Default: "", Free: true},
		},
		Metrics: rusageMetrics,
		// Six samples of the half-second quick build. Standard and study
		// keep the runner's default of 10: a std build takes about 45 s
		// on two idle cores, so go-build is some 8 minutes of them.
		// A std build takes about 45 s on two idle cores: 6 repetitions (the
		// fewest that give a 95% interval) keep the standard suite in minutes.
		Repetitions: map[Suite]int{Quick: 6, Standard: 6, Study: 6},
	}
}

// How long a build takes on the development machine: a clean go build -a
// std (or a module's ./...), and one package pattern of a smaller target
// (the quick suite's five: 1.5 s).
const (
	goBuildStd     = 80 * time.Second
	goBuildPackage = 300 * time.Millisecond
)

// Cost implements Estimator: a module or std (or all) costs a std build,
// a smaller target its package patterns.
func (GoBuild) Cost(p Params) time.Duration {
	target := strings.Fields(p.Str("target"))
	if p.Str("dir") != "" || slices.Contains(target, "std") || slices.Contains(target, "all") {
		return goBuildStd
	}
	return time.Duration(max(len(target), 1)) * goBuildPackage
}

// Available implements Availability: the workload needs the go command.
func (GoBuild) Available(Params) error {
	if _, err := child.LookPath("go"); err != nil {
		return errors.New("needs the go command, which is not on PATH (install Go or add its bin directory to PATH)")
	}
	return nil
}

// Preflight implements Preflighter: a dir that does not exist is a usage
// error naming it.
func (GoBuild) Preflight(p Params) error {
	if dir := p.Str("dir"); dir != "" {
		return checkDir("go-build.dir", dir)
	}
	return nil
}

// goBuildPatterns returns the package patterns a repetition builds: with
// dir, the module's ./... (as the study did), else target.
func goBuildPatterns(p Params) []string {
	if p.Str("dir") != "" {
		return []string{"./..."}
	}
	if target := strings.Fields(p.Str("target")); len(target) > 0 {
		return target
	}
	return []string{"std"}
}

// Run implements Workload. Every repetition gets a new temporary directory
// holding the empty GOCACHE and the go command's GOTMPDIR (so that a killed
// build leaves no work directory behind); it is removed on every path.
// Outputs go to /dev/null: a build of one main package would otherwise
// write a binary into the module.
func (g GoBuild) Run(ctx context.Context, _ Env, p Params) (s Sample, err error) {
	if err := g.Available(p); err != nil {
		return Sample{}, &UsageError{Msg: "go-build: " + err.Error()}
	}
	if err := g.Preflight(p); err != nil {
		return Sample{}, err
	}
	goPath, err := child.LookPath("go")
	if err != nil {
		return Sample{}, err
	}
	tmp, err := makeOwnedTemp()
	if err != nil {
		return Sample{}, fmt.Errorf("go-build: temporary directory: %w", err)
	}
	defer removeTemp(tmp, &s, &err)
	cache, work := filepath.Join(tmp, "cache"), filepath.Join(tmp, "work")
	for _, d := range []string{cache, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return Sample{}, fmt.Errorf("go-build: %w", err)
		}
	}
	dir := p.Str("dir")
	if dir == "" {
		dir = work // outside any module or workspace
	}
	argv := append([]string{"go", "build", "-a", "-o", os.DevNull}, goBuildPatterns(p)...)
	s, err = runTimed(ctx, timedChild{
		path: goPath,
		argv: argv,
		dir:  dir,
		env:  goBuildEnv(os.Environ(), cache, work),
	})
	if err != nil && ctx.Err() == nil {
		var ue *UsageError
		if !errors.As(err, &ue) {
			err = fmt.Errorf("go build failed: %w", err)
		}
	}
	return s, err
}

// goBuildEnv is our environment with GOCACHE and GOTMPDIR replaced.
func goBuildEnv(environ []string, cache, work string) []string {
	out := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GOCACHE=") || strings.HasPrefix(kv, "GOTMPDIR=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOCACHE="+cache, "GOTMPDIR="+work)
}
