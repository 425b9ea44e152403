package workload

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCtlHash(t *testing.T) {
	x := uint64(7)
	for i := uint64(0); i < 3; i++ {
		x = x*0x9e3779b97f4a7c15 + i
		x ^= x >> 29
	}
	if got := ctlHash(7, 3); got != x {
		t.Fatalf("ctlHash(7, 3) = %#x, want %#x", got, x)
	}
	if ctlHash(7, 0) != 7 {
		t.Fatal("ctlHash(x, 0) != x")
	}
}

func TestCtlUser(t *testing.T) {
	w := CtlUser{}
	s, err := w.Run(context.Background(), testEnv(t), moreParams(t, w, map[string]string{"loops": "10000"}))
	if err != nil {
		t.Fatal(err)
	}
	checkFinite(t, w, s)
}

func TestCtlVDSO(t *testing.T) {
	w := CtlVDSO{}
	s, err := w.Run(context.Background(), testEnv(t), moreParams(t, w, map[string]string{"loops": "10000"}))
	if err != nil {
		t.Fatal(err)
	}
	checkFinite(t, w, s)
}

func TestCtlVDSOWarning(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		sys, elapsed time.Duration
		warn         bool
	}{
		{0, 400 * ms, false},
		{100 * ms, 400 * ms, false},
		{200 * ms, 400 * ms, true},
		{40 * ms, 40 * ms, false}, // too short to judge
	} {
		w := ctlVDSOWarning(c.sys, c.elapsed)
		if (w != "") != c.warn {
			t.Errorf("sys %v of %v: warning %q, want one: %v", c.sys, c.elapsed, w, c.warn)
		}
		if c.warn && !strings.Contains(w, "50%") {
			t.Errorf("warning %q does not give the share", w)
		}
	}
}

func TestControlsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, w := range []Workload{CtlUser{}, CtlVDSO{}} {
		_, err := w.Run(ctx, testEnv(t), moreParams(t, w, map[string]string{"loops": "100000000"}))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", w.Info().ID, err)
		}
	}
}

// The controls keep the ctl- prefix (compare treats those ids as negative
// controls) and say that they do not enter the kernel.
func TestControlsDeclared(t *testing.T) {
	for _, w := range []Workload{CtlUser{}, CtlVDSO{}} {
		in := w.Info()
		if !strings.HasPrefix(in.ID, "ctl-") || !strings.HasPrefix(in.Stresses.Note, "negative control: no kernel entry") || !in.Stresses.Control {
			t.Errorf("%s: stresses %q", in.ID, in.Stresses.Note)
		}
	}
}
