package campaign

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/sysinfo"
)

// Settler judges when a fresh boot has settled enough to measure: where
// systemd runs, when it reports startup finished (systemctl
// is-system-running --wait); elsewhere, when the one-minute load average
// drops below Load. Either way it waits at most Max and then measures
// anyway, saying so.
type Settler struct {
	Max  time.Duration // default 5 minutes
	Load float64       // default 0.5
	Poll time.Duration // default 2 s
	// Now and Sleep are the clock (tests replace them).
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
}

// Quiet is how the start was judged quiet and how long that took.
type Quiet struct {
	How    string
	Waited time.Duration
}

func (s *Settler) defaults() Settler {
	o := Settler{Max: 5 * time.Minute, Load: 0.5, Poll: 2 * time.Second, Now: time.Now, Sleep: sleep}
	if s == nil {
		return o
	}
	if s.Max > 0 {
		o.Max = s.Max
	}
	if s.Load > 0 {
		o.Load = s.Load
	}
	if s.Poll > 0 {
		o.Poll = s.Poll
	}
	if s.Now != nil {
		o.Now = s.Now
	}
	if s.Sleep != nil {
		o.Sleep = s.Sleep
	}
	return o
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// QuietStart waits for the boot to settle (see Settler).
func (h *Host) QuietStart(ctx context.Context) (Quiet, error) {
	s := h.Settle.defaults()
	start := s.Now()
	if h.Systemd() && h.Exec != nil {
		wctx, cancel := context.WithTimeout(ctx, s.Max)
		out, err := h.Exec(wctx, "systemctl", "is-system-running", "--wait")
		cancel()
		if ctx.Err() != nil {
			return Quiet{}, ctx.Err()
		}
		state := strings.TrimSpace(string(out))
		waited := s.Now().Sub(start)
		switch {
		case state == "running":
			return Quiet{"systemd reported startup finished (running)", waited}, nil
		case state == "degraded":
			return Quiet{"systemd reported startup finished (degraded: a unit failed, see systemctl --failed)", waited}, nil
		case wctx.Err() != nil:
			return Quiet{fmt.Sprintf("systemd still starting after %v; measured anyway", s.Max), waited}, nil
		case err != nil && state == "":
			return Quiet{fmt.Sprintf("systemctl is-system-running failed (%v); measured without waiting", err), waited}, nil
		}
		return Quiet{fmt.Sprintf("systemd reported %q; measured anyway", state), waited}, nil
	}
	for {
		load, err := h.loadAverage()
		waited := s.Now().Sub(start)
		if err != nil {
			return Quiet{fmt.Sprintf("no load average (%v); measured without waiting", err), waited}, nil
		}
		if load < s.Load {
			return Quiet{fmt.Sprintf("load average %.2f below %.2f", load, s.Load), waited}, nil
		}
		if waited >= s.Max {
			return Quiet{fmt.Sprintf("load average still %.2f after %v; measured anyway", load, s.Max), waited}, nil
		}
		if err := s.Sleep(ctx, s.Poll); err != nil {
			return Quiet{}, err
		}
	}
}

// loadAverage is the one-minute load average from /proc/loadavg.
func (h *Host) loadAverage() (float64, error) {
	text, err := h.readText("proc/loadavg")
	if err != nil {
		return 0, err
	}
	v, err := sysinfo.ParseLoadAvg(text)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", h.path("proc/loadavg"), err)
	}
	return v, nil
}
