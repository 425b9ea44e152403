package workload

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/proctest"
)

// testEnv re-executes the test binary as the worker (see TestMain).
func testEnv(t *testing.T) Env {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Env{Exe: exe, WorkerArgs: []string{WorkerCommand}, Timeout: 60 * time.Second}
}

// moreParams resolves w's quick parameters with kv applied.
func moreParams(t *testing.T, w Workload, kv map[string]string) Params {
	t.Helper()
	p, err := Resolve(w.Info(), Quick, kv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// privateTmp points $TMPDIR at a fresh directory and returns it, so that a
// test can check that a workload left nothing behind.
func privateTmp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return dir
}

// assertEmptyDir fails when dir holds anything.
func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("%s still holds %v", dir, names)
	}
}

// assertUsage fails unless err is a *UsageError (exit 2) mentioning want.
func assertUsage(t *testing.T, err error, want string) {
	t.Helper()
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v (%T), want a *UsageError", err, err)
	}
	if k := exit.Of(err); k != exit.Usage {
		t.Fatalf("kind %v, want usage", k)
	}
	if !strings.Contains(ue.Error(), want) {
		t.Fatalf("error %q does not mention %q", ue.Error(), want)
	}
}

// assertGroupGone fails when process group pgid still has a live member.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if !proctest.Eventually(func() bool { return len(proctest.GroupMembers(pgid)) == 0 }) {
		t.Fatalf("process group %d still has members %v", pgid, proctest.GroupMembers(pgid))
	}
	if err := syscall.Kill(-pgid, 0); err == nil && len(proctest.GroupMembers(pgid)) > 0 {
		t.Fatalf("process group %d still exists", pgid)
	}
}

// cancelWhen cancels the returned context once cond holds (polled), and
// records that it did.
func cancelWhen(t *testing.T, cond func() bool) (context.Context, *atomic.Bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	fired := new(atomic.Bool)
	go func() {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if ctx.Err() != nil {
				return
			}
			if cond() {
				fired.Store(true)
				cancel()
				return
			}
		}
	}()
	return ctx, fired
}

// checkFinite fails unless s has every metric of w, each finite and > 0
// (or >= 0 for counts named in zeroOK).
func checkFinite(t *testing.T, w Workload, s Sample, zeroOK ...string) {
	t.Helper()
	for _, m := range w.Info().Metrics {
		v, ok := s.Values[m.Name]
		if !ok {
			t.Fatalf("%s: metric %s missing from %v", w.Info().ID, m.Name, s.Values)
		}
		allowZero := false
		for _, z := range zeroOK {
			allowZero = allowZero || z == m.Name
		}
		if v != v || v > 1e300 || v < 0 || (!allowZero && v == 0) {
			t.Fatalf("%s: metric %s = %v", w.Info().ID, m.Name, v)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
