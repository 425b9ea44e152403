package workload

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/proctest"
)

func TestSpawnSelf(t *testing.T) {
	w := Spawn{}
	s, err := w.Run(context.Background(), testEnv(t), moreParams(t, w, map[string]string{"loops": "5", "program": "self"}))
	if err != nil {
		t.Fatal(err)
	}
	checkFinite(t, w, s)
	if got := s.Values["usecs_per_spawn"] * s.Values["spawns_per_sec"]; got < 0.999e6 || got > 1.001e6 {
		t.Errorf("usecs_per_spawn × spawns_per_sec = %v, want 1e6", got)
	}
	if kids := proctest.LiveChildren(os.Getpid()); len(kids) > 0 {
		t.Fatalf("children left: %v", kids)
	}
}

// The default program is the tiny one, which needs no executable of
// sectax's; program=true runs /bin/true.
func TestSpawnTinyAndTrue(t *testing.T) {
	w := Spawn{}
	if p := moreParams(t, w, nil); p.Str("program") != "tiny" {
		t.Fatalf("default program %q, want tiny", p.Str("program"))
	}
	for _, program := range []string{"tiny", "true"} {
		p := moreParams(t, w, map[string]string{"loops": "5", "program": program})
		if err := w.Preflight(p); err != nil {
			t.Skip(err)
		}
		s, err := w.Run(context.Background(), Env{}, p)
		if err != nil {
			t.Fatal(err)
		}
		checkFinite(t, w, s)
		if kids := proctest.LiveChildren(os.Getpid()); len(kids) > 0 {
			t.Fatalf("children left: %v", kids)
		}
	}
}

// A child that fails fails the repetition: the worker name is unknown.
func TestSpawnFailingChild(t *testing.T) {
	env := testEnv(t)
	env.WorkerArgs = []string{WorkerCommand, "no-such-worker"}
	w := Spawn{}
	_, err := w.Run(context.Background(), env, moreParams(t, w, map[string]string{"loops": "3", "program": "self"}))
	if err == nil {
		t.Fatal("a failing child passed")
	}
}

func TestSpawnMissingExe(t *testing.T) {
	w := Spawn{}
	_, err := w.Run(context.Background(), Env{Exe: "/nonexistent/sectax"}, moreParams(t, w, map[string]string{"loops": "3", "program": "self"}))
	if err == nil {
		t.Fatal("spawned a missing program")
	}
	if _, err := w.Run(context.Background(), Env{}, moreParams(t, w, map[string]string{"program": "self"})); err == nil {
		t.Fatal("spawned without Env.Exe")
	}
}

// Cancelled mid-loop: Run returns soon and no child is left.
func TestSpawnCancelled(t *testing.T) {
	w := Spawn{}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := w.Run(ctx, testEnv(t), moreParams(t, w, map[string]string{"loops": "1000000"}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// A watchdog, not a measure: a million spawns would take many minutes.
	if d := time.Since(start); d > 2*time.Minute {
		t.Fatalf("returned %v after the cancellation", d)
	}
	if !proctest.Eventually(func() bool { return len(proctest.LiveChildren(os.Getpid())) == 0 }) {
		t.Fatalf("children left: %v", proctest.LiveChildren(os.Getpid()))
	}
}
