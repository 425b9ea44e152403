package perfbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

func params(t *testing.T, w workload.Workload, kv map[string]string) workload.Params {
	t.Helper()
	p, err := workload.Resolve(w.Info(), workload.Quick, kv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestArgs(t *testing.T) {
	old := &Engine{Version: "perf version 6.1.187", Major: 6, Minor: 1}
	tests := []struct {
		w    workload.Workload
		kv   map[string]string
		want string
	}{
		{workload.SyscallBasic{}, map[string]string{"loops": "10000000"}, "bench syscall basic -l 10000000"},
		{workload.SchedPipe{}, map[string]string{"loops": "100000"}, "bench sched pipe -l 100000"},
		{workload.SchedPipe{}, map[string]string{"mode": "thread"}, "bench sched pipe -l 50000 -T"},
		{workload.SchedMessaging{}, map[string]string{"groups": "20", "loops": "1000"}, "bench sched messaging -g 20 -l 1000"},
		{workload.SchedMessaging{}, map[string]string{"ipc": "pipe", "mode": "thread"}, "bench sched messaging -g 5 -l 100 -p -t"},
	}
	for _, tt := range tests {
		a, err := tt.w.(workload.PerfBencher).PerfArgs(params(t, tt.w, tt.kv), old.PerfVersion())
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, strings.Join(a, " ")); d != "" {
			t.Errorf("%s %v: %s", tt.w.Info().ID, tt.kv, d)
		}
	}
	// perf 6.1 cannot run the symmetric style; perf 6.15 cannot run ping-pong.
	pipe, _ := old.Wrap(workload.SchedPipe{})
	if err := pipe.(workload.Preflighter).Preflight(params(t, workload.SchedPipe{}, map[string]string{"style": "symmetric"})); err == nil ||
		!strings.Contains(err.Error(), "perf version 6.1.187 runs sched pipe in pingpong style, not symmetric: use --param sched-pipe.style=pingpong") {
		t.Errorf("symmetric on perf 6.1: err = %v", err)
	}
	recent := &Engine{Version: "perf version 6.15.2", Major: 6, Minor: 15}
	pipe, _ = recent.Wrap(workload.SchedPipe{})
	if err := pipe.(workload.Preflighter).Preflight(params(t, workload.SchedPipe{}, nil)); err == nil || !strings.Contains(err.Error(), "style=symmetric") {
		t.Errorf("pingpong on perf 6.15: err = %v", err)
	}
	// perf reads its options into a C int.
	_, err := old.Wrap(workload.SchedMessaging{})
	if err != nil {
		t.Fatal(err)
	}
	big := params(t, workload.SchedMessaging{}, map[string]string{"loops": "2147483648"})
	var ue *workload.UsageError
	if _, err := (workload.SchedMessaging{}).PerfArgs(big, old.PerfVersion()); !errors.As(err, &ue) ||
		err.Error() != "sched-messaging.loops=2147483648 is more than perf accepts (at most 2147483647)" {
		t.Errorf("loops over perf's int: err = %v", err)
	}
	if _, err := old.Wrap(workload.GoBuild{}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "go-build has no perf bench equivalent") {
		t.Errorf("a workload without a perf equivalent: err = %v, want a usage error", err)
	}
}

// TestRealPerf runs the installed perf at tiny sizes through the engine.
func TestRealPerf(t *testing.T) {
	e, err := Find(context.Background(), "")
	if err != nil {
		testutil.Need(t, "no usable perf: %v", err)
	}
	env := workload.Env{Timeout: time.Minute}
	style := workload.SchedPipe{}.PerfDefaults(e.PerfVersion())["style"]
	for _, tt := range []struct {
		w      workload.Workload
		kv     map[string]string
		metric string
	}{
		{workload.SyscallBasic{}, map[string]string{"loops": "10000"}, "usecs_per_op"},
		{workload.SchedPipe{}, map[string]string{"loops": "200", "style": style}, "usecs_per_op"},
		{workload.SchedPipe{}, map[string]string{"loops": "200", "mode": "thread", "style": style}, "ops_per_sec"},
		{workload.SchedMessaging{}, map[string]string{"groups": "1", "loops": "5"}, "total_s"},
		{workload.SchedMessaging{}, map[string]string{"groups": "1", "loops": "5", "mode": "thread", "ipc": "pipe"}, "total_s"},
	} {
		pw, err := e.Wrap(tt.w)
		if err != nil {
			t.Fatal(err)
		}
		s, err := pw.Run(context.Background(), env, params(t, tt.w, tt.kv))
		if err != nil {
			t.Fatalf("%s %v: %v", tt.w.Info().ID, tt.kv, err)
		}
		if v, ok := s.Values[tt.metric]; !ok || v < 0 {
			t.Errorf("%s %v: %s = %v (%v)", tt.w.Info().ID, tt.kv, tt.metric, v, s.Values)
		}
	}
}

func TestFindMissing(t *testing.T) {
	if _, err := Find(context.Background(), "/nonexistent/perf"); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

// TestPerfLacksOption runs a perf that rejects an option (a script standing
// in for an old perf, exiting 129 with perf's usage text).
func TestPerfLacksOption(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "perf")
	body := "#!/bin/sh\necho \"# Running 'sched/pipe' benchmark:\"\necho \"  Error: unknown switch \\`T'\" >&2\nexit 129\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	e := &Engine{Path: script, Version: "perf version 4.9.0", Major: 4, Minor: 9}
	pw, _ := e.Wrap(workload.SchedPipe{})
	_, err := pw.Run(context.Background(), workload.Env{}, params(t, workload.SchedPipe{}, map[string]string{"mode": "thread"}))
	var ue *workload.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "perf version 4.9.0 does not accept `perf bench sched pipe -l 50000 -T`") ||
		!strings.Contains(err.Error(), "unknown switch") {
		t.Errorf("err = %v", err)
	}
}
