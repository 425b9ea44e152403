package workload

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/proctest"
)

// checkPerOp checks that a per-op sample is consistent: both metrics
// positive and ops_per_sec * usecs_per_op == 1e6.
func checkPerOp(t *testing.T, s Sample) {
	t.Helper()
	us, ops := s.Values["usecs_per_op"], s.Values["ops_per_sec"]
	if !(us > 0) || !(ops > 0) {
		t.Fatalf("non-positive metrics: %v", s.Values)
	}
	if prod := us * ops; prod < 0.999e6 || prod > 1.001e6 {
		t.Fatalf("usecs_per_op × ops_per_sec = %g, want 1e6", prod)
	}
}

func TestSyscallBasic(t *testing.T) {
	w := SyscallBasic{}
	s, err := w.Run(context.Background(), testEnv(t), moreParams(t, w, map[string]string{"loops": "1000"}))
	if err != nil {
		t.Fatal(err)
	}
	checkPerOp(t, s)
}

func TestSyscallBasicCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := SyscallBasic{}
	_, err := w.Run(ctx, testEnv(t), moreParams(t, w, map[string]string{"loops": strconv.Itoa(3 * syscallChunk)}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestSchedPipe(t *testing.T) {
	for _, mode := range []string{"process/fork", "process/exec", "thread"} {
		for _, style := range []string{"pingpong", "symmetric"} {
			t.Run(mode+"/"+style, func(t *testing.T) {
				w := SchedPipe{}
				mode, spawn, _ := strings.Cut(mode, "/")
				p := moreParams(t, w, map[string]string{"loops": "200", "mode": mode, "style": style, "spawn": or(spawn, "fork")})
				s, err := w.Run(context.Background(), testEnv(t), p)
				if err != nil {
					t.Fatal(err)
				}
				checkPerOp(t, s)
				checkFootprint(t, s, mode, 1)
				if spawn == "fork" && s.Footprint.Threads != 1 {
					t.Errorf("a forked worker has one thread, got %d", s.Footprint.Threads)
				}
				assertNoChildren(t)
			})
		}
	}
}

func TestSchedMessaging(t *testing.T) {
	for _, mode := range []string{"process/fork", "process/exec", "thread"} {
		for _, ipc := range []string{"socket", "pipe"} {
			t.Run(mode+"/"+ipc, func(t *testing.T) {
				w := SchedMessaging{}
				mode, spawn, _ := strings.Cut(mode, "/")
				p := moreParams(t, w, map[string]string{"groups": "1", "loops": "5", "mode": mode, "ipc": ipc, "spawn": or(spawn, "fork")})
				s, err := w.Run(context.Background(), testEnv(t), p)
				if err != nil {
					t.Fatal(err)
				}
				total, work := s.Values["total_s"], s.Values["work_s"]
				if !(work > 0) || total < work {
					t.Fatalf("want 0 < work_s <= total_s, got %v", s.Values)
				}
				checkFootprint(t, s, mode, 40)
				assertNoChildren(t)
			})
		}
	}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestSchedMessagingCancel cancels a process-mode run while its workers are
// exchanging messages and checks that every child is gone.
func TestSchedMessagingCancel(t *testing.T) {
	for _, spawn := range []string{"fork", "exec"} {
		t.Run(spawn, func(t *testing.T) {
			w := SchedMessaging{}
			p := moreParams(t, w, map[string]string{"groups": "2", "loops": "1000000", "mode": "process", "spawn": spawn})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Cancelled once its 80 workers (two groups of 20 senders and
			// 20 receivers) exist: mid-run, not mid-spawn, whatever the
			// machine's load.
			go func() {
				for proctest.Descendants(os.Getpid()) < 80 && ctx.Err() == nil {
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
			}()
			start := time.Now()
			_, err := w.Run(ctx, testEnv(t), p)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			// A watchdog, not a measure: the run itself would take hours.
			if d := time.Since(start); d > 2*time.Minute {
				t.Errorf("cancellation took %v", d)
			}
			assertNoChildren(t)
		})
	}
}

// TestSchedMessagingTimeout: a repetition that outlives its timeout fails
// with a clear error instead of hanging, and leaves no child.
func TestSchedMessagingTimeout(t *testing.T) {
	w := SchedMessaging{}
	p := moreParams(t, w, map[string]string{"groups": "1", "loops": "1000000", "mode": "process", "spawn": "exec"})
	env := testEnv(t)
	// A second: the 40 workers may still be starting on a loaded machine
	// when it runs out, a barrier earlier, with the same error.
	env.Timeout = time.Second
	_, err := w.Run(context.Background(), env, p)
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("err = %v, want a timeout error", err)
	}
	assertNoChildren(t)
}

func TestWorkerMainErrors(t *testing.T) {
	for _, args := range [][]string{nil, {"nope"}, {"pipe"}, {"msg-send", "x", "1"}, {"msg-recv"}} {
		if err := WorkerMain(args); err == nil {
			t.Errorf("WorkerMain(%q) = nil, want an error", args)
		}
	}
}

// assertNoChildren fails if this process has any child left.
func assertNoChildren(t *testing.T) {
	t.Helper()
	if kids := proctest.Children(os.Getpid()); len(kids) > 0 {
		t.Fatalf("children left behind: %v", kids)
	}
}

// checkFootprint: process mode measures every worker process, thread mode
// has none to measure.
func checkFootprint(t *testing.T, s Sample, mode string, procs int64) {
	t.Helper()
	if mode == "thread" {
		if s.Footprint != nil {
			t.Errorf("thread mode has no worker processes, got footprint %+v", s.Footprint)
		}
		return
	}
	f := s.Footprint
	if f == nil || f.Processes != procs || f.Threads < procs || f.RSSKiB <= 0 || f.PSSKiB <= 0 || f.PSSKiB > f.RSSKiB {
		t.Errorf("footprint = %+v, want %d processes with threads, RSS >= PSS > 0", f, procs)
	}
}
