package adaptive

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAdaptiveRound(t *testing.T) {
	a := Policy{TargetPct: 2, Budget: 10 * time.Minute}
	inf := math.Inf(1)
	for _, tc := range []struct {
		name    string
		widths  map[string]float64
		elapsed time.Duration
		more    []string
		stopped map[string]string
	}{
		{"all narrow", map[string]float64{"off": 1.5, "no-pti": 2}, time.Minute, nil,
			map[string]string{"off": StopTarget, "no-pti": StopTarget}},
		{"one wide, one without interval", map[string]float64{"off": 1, "no-pti": 3, "no-mds": inf}, time.Minute,
			[]string{"no-mds", "no-pti"}, map[string]string{"off": StopTarget}},
		// 3 boots of a minute do not fit in the 2 minutes left.
		{"budget", map[string]float64{"off": 1, "no-pti": 3, "no-mds": inf}, 8 * time.Minute, nil,
			map[string]string{"off": StopTarget, "no-pti": StopBudget, "no-mds": StopBudget}},
		{"exactly fits", map[string]float64{"no-pti": 3}, 8 * time.Minute, []string{"no-pti"}, map[string]string{}},
	} {
		more, stopped := a.Round(tc.widths, tc.elapsed, time.Minute)
		if !slices.Equal(more, tc.more) || !maps.Equal(stopped, tc.stopped) {
			t.Errorf("%s: more %v stopped %v, want %v %v", tc.name, more, stopped, tc.more, tc.stopped)
		}
	}
	for _, bad := range []Policy{{TargetPct: 0, Budget: time.Hour}, {TargetPct: math.NaN(), Budget: time.Hour}, {TargetPct: 2}} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if a.Check() != nil {
		t.Errorf("%+v refused", a)
	}
}

// TestBudgetBound: --budget has a maximum, named when exceeded.
func TestBudgetBound(t *testing.T) {
	if err := (Policy{TargetPct: 2, Budget: 1 << 62}).Check(); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("huge budget: %v", err)
	}
	if err := (Policy{TargetPct: 2, Budget: 2 * time.Hour}).Check(); err != nil {
		t.Error(err)
	}
}
