package workload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/proctest"
)

func needGo(t *testing.T) {
	t.Helper()
	if err := (GoBuild{}).Available(nil); err != nil {
		t.Skip(err)
	}
}

// The metric names are a contract with the study baselines.
func TestGoBuildMetricNames(t *testing.T) {
	var names []string
	for _, m := range (GoBuild{}).Info().Metrics {
		names = append(names, m.Name)
	}
	want := []string{"wall_s", "user_s", "sys_s", "cpu_pct", "nvcsw", "nivcsw", "max_rss_kb"}
	if !slices.Equal(names, want) {
		t.Fatalf("metrics %v, want %v", names, want)
	}
}

func TestGoBuildPatterns(t *testing.T) {
	for _, c := range []struct {
		target, dir string
		want        []string
	}{
		{"std", "", []string{"std"}},
		{"std", "/m", []string{"./..."}},
		{"math", "/m", []string{"./..."}},
		{"math  unicode", "", []string{"math", "unicode"}},
		{"", "", []string{"std"}},
	} {
		got := goBuildPatterns(Params{"target": c.target, "dir": c.dir})
		if !slices.Equal(got, c.want) {
			t.Errorf("target=%q dir=%q: %v, want %v", c.target, c.dir, got, c.want)
		}
	}
}

func TestGoBuildEnv(t *testing.T) {
	got := goBuildEnv([]string{"A=1", "GOCACHE=/old", "GOTMPDIR=/x", "GOFLAGS=-v"}, "/c", "/w")
	want := []string{"A=1", "GOFLAGS=-v", "GOCACHE=/c", "GOTMPDIR=/w"}
	if !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

// A real clean build of the two-file module in testdata.
func TestGoBuildTinyModule(t *testing.T) {
	needGo(t)
	tmp := privateTmp(t)
	dir, err := filepath.Abs("testdata/gomod")
	if err != nil {
		t.Fatal(err)
	}
	w := GoBuild{}
	p := moreParams(t, w, map[string]string{"dir": dir})
	if err := w.Preflight(p); err != nil {
		t.Fatal(err)
	}
	s, err := w.Run(context.Background(), testEnv(t), p)
	if err != nil {
		t.Fatal(err)
	}
	checkFinite(t, w, s, "sys_s", "nvcsw", "nivcsw")
	if s.Values["user_s"]+s.Values["sys_s"] <= 0 {
		t.Errorf("no CPU time measured: %v", s.Values)
	}
	assertEmptyDir(t, tmp)
	// -o /dev/null: nothing is written into the module.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("the module now holds %d entries, want its 3 files", len(ents))
	}
}

// A build that fails fails the repetition with the compiler's last lines.
func TestGoBuildBroken(t *testing.T) {
	needGo(t)
	tmp := privateTmp(t)
	w := GoBuild{}
	_, err := w.Run(context.Background(), testEnv(t), moreParams(t, w, map[string]string{"dir": "testdata/gobroken"}))
	if err == nil {
		t.Fatal("the broken module built")
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		t.Fatalf("a compile error is not a usage error: %v", err)
	}
	for _, want := range []string{"go build failed", "exited with status 1", "undefinedName"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	assertEmptyDir(t, tmp)
}

func TestGoBuildMissingDir(t *testing.T) {
	w := GoBuild{}
	p := moreParams(t, w, map[string]string{"dir": "/nonexistent/module"})
	assertUsage(t, w.Preflight(p), "/nonexistent/module")
	needGo(t)
	_, err := w.Run(context.Background(), testEnv(t), p)
	assertUsage(t, err, "/nonexistent/module")
}

func TestGoBuildWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	w := GoBuild{}
	p := moreParams(t, w, nil)
	if err := w.Available(p); err == nil || !strings.Contains(err.Error(), "PATH") {
		t.Fatalf("Available = %v, want an error about PATH", err)
	}
	_, err := w.Run(context.Background(), testEnv(t), p)
	assertUsage(t, err, "go command")
}

// Cancelled mid-build: the go command and its compilers are killed, the
// temporary GOCACHE is removed.
func TestGoBuildCancelled(t *testing.T) {
	needGo(t)
	tmp := privateTmp(t)
	// "errors" imports the runtime: seconds of work, cancelled at once.
	// The go command is our child, or the launcher's (tinyelf.go) where
	// there is one; its process group is the one child.Start made.
	var group int
	ctx, fired := cancelWhen(t, func() bool {
		for _, c := range proctest.LiveChildren(os.Getpid()) {
			for _, pid := range append([]int{c}, proctest.LiveChildren(c)...) {
				if b, _ := os.ReadFile(filepath.Join("/proc", itoa(pid), "comm")); strings.TrimSpace(string(b)) == "go" && len(proctest.LiveChildren(pid)) > 0 {
					group = c // a compiler is running
					return true
				}
			}
		}
		return false
	})
	w := GoBuild{}
	_, err := w.Run(ctx, testEnv(t), moreParams(t, w, map[string]string{"target": "errors"}))
	if !fired.Load() {
		t.Skipf("the build ended (%v) before a compiler was seen", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	assertGroupGone(t, group)
	if kids := proctest.LiveChildren(os.Getpid()); len(kids) > 0 {
		t.Fatalf("children left: %v", kids)
	}
	assertEmptyDir(t, tmp)
}
